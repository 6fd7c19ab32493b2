"""Helpers for the gattai-conflict tests: rigging hands and deck tops, and starting scripted conflicts."""

from __future__ import annotations

from domain.rulesets import gattai_conflict as gc
from domain.rulesets.gattai_conflict.cards import is_joker
from tests.support.harness import Game, start

QUIET = {"steel": 2, "flesh": 2, "synch": 0, "solo": 0, "charges_max": 3, "buffers": 1}


def rig(game: Game, hands: dict[str, list[str]] | None = None, tops: dict[str, list[str]] | None = None,
        deck_only: dict[str, list[str]] | None = None) -> None:
    """Rearrange a started game: given hands and deck tops; every card stays in play (conservation holds).

    Cards of a deck's draw pile, Trash, Omens and hands are pooled; the named cards go where
    asked, other hands keep their size, the rest forms the deck (Jokers at the bottom, so no
    Omen surfaces unless a test puts one on top). With `deck_only`, that deck holds just the
    listed cards (and its Jokers, at the bottom) and the rest of its pool goes to its Trash.
    """
    hands, tops, deck_only = hands or {}, tops or {}, deck_only or {}
    st = game.state
    for deck in ("pilot", "coach"):
        seats = [s for s in st["seats"] if (s == "coach") == (deck == "coach")]
        d = st["decks"][deck]
        pool = list(d["draw"]) + list(d["trash"]) + [o["card"] for o in d["omens"]]
        pool += [c for s in seats for c in st["hands"][s]]
        d["omens"] = []
        wanted = [c for s in seats for c in hands.get(s, [])] + list(tops.get(deck, []))
        for card in wanted:
            pool.remove(card)
        plain = [c for c in pool if not is_joker(c)]
        jokers = [c for c in pool if is_joker(c)]
        for s in seats:
            if s in hands:
                st["hands"][s] = list(hands[s])
            else:
                size = len(st["hands"][s])
                st["hands"][s], plain = plain[:size], plain[size:]
        if deck in deck_only:
            for card in deck_only[deck]:
                plain.remove(card)
            d["draw"] = list(tops.get(deck, [])) + list(deck_only[deck]) + jokers
            d["trash"] = plain
        else:
            d["draw"] = list(tops.get(deck, [])) + plain + jokers
            d["trash"] = []


def gambit(hands: dict[str, list[str]], *, tops: dict[str, list[str]] | None = None,
           deck_only: dict[str, list[str]] | None = None, **config) -> Game:
    """A Gambit with rigged hands, waiting for the Threshold."""
    game = start(gc, {"mode": "gambit", "pilots": {"p1": dict(QUIET)}, **config})
    rig(game, hands, tops, deck_only)
    return game


def throwdown(pilot_hand: list[str], coach_hand: list[str], *, init: tuple[str, str] = ("P.5H", "C.4H"),
              pilots: dict | None = None, tops: dict[str, list[str]] | None = None, other_hands: dict | None = None,
              to_turns: bool = True, **config) -> Game:
    """A Throwdown with rigged hands: Initiative played (`init` = pilot card, coach card) and, with
    `to_turns`, the question answered and swaps passed, so the turns have begun."""
    game = start(gc, {"mode": "throwdown", "pilots": pilots or {"p1": dict(QUIET)}, **config})
    hands = {"p1": [init[0], *pilot_hand], "coach": [init[1], *coach_hand], **(other_hands or {})}
    rig(game, hands, tops)
    game.act("p1", gc.SealInitiative(init[0]))
    game.act("coach", gc.SealInitiative(init[1]))
    game.act("coach", gc.RevealInitiative())
    if to_turns:
        game.act("coach", gc.AnswerQuestion(True))
        for seat in list(game.state["throwdown"]["to_give"]):
            game.act(seat, gc.GiveCards(()))
    return game


def kinds(events) -> list[str]:
    """The kinds of a list of events."""
    return [e.kind for e in events]


def td(game: Game) -> dict:
    """The Throwdown's bookkeeping."""
    return game.state["throwdown"]


def pile_cards(game: Game) -> list[str]:
    """The cards of the current Pile, bottom first."""
    return [e["card"] for e in td(game)["piles"][-1]["cards"]]


def all_cards(state: dict) -> list[str]:
    """Every card the state holds, wherever it is (conservation)."""
    out = []
    for d in state["decks"].values():
        out += d["draw"] + d["trash"] + [o["card"] for o in d["omens"]]
    for hand in state["hands"].values():
        out += hand
    out += [e["card"] for e in state["table"]]
    out += [c for cards in state["stacks"].values() for c in cards]
    if state["throwdown"] is not None:
        out += [e["card"] for p in state["throwdown"]["piles"] for e in p["cards"]]
    return out
