"""The web layer: Flask app factory, blueprints, marshmallow schemas, auth and error mapping."""
