"""The report of a verification: each check made, and whether it held, in the order made."""

from __future__ import annotations

from dataclasses import dataclass, field

VERIFIED, UNSIGNED, FAILED = "VERIFIED", "UNSIGNED", "FAILED"
# Everything held, but the write is not yet in a checkpoint a quorum of witnesses cosigned, and its merge delay has
# not passed: neither proven nor disproven yet (docs/verification.md, section 12).
PENDING = "PENDING"


@dataclass
class Check:
    """One line of the report: what was checked, and whether it held."""

    name: str
    status: str  # "pass" | "fail" | "skip"
    detail: str = ""

    def as_dict(self) -> dict:
        """JSON form."""
        return {"check": self.name, "status": self.status, "detail": self.detail}


@dataclass
class Report:
    """The outcome of verifying one export."""

    source: str
    match_id: str | None = None
    ruleset: str | None = None
    records: int = 0
    signed: bool = False
    checks: list[Check] = field(default_factory=list)
    calls: list[dict] = field(default_factory=list)
    disputes: list[dict] = field(default_factory=list)
    # Why the verdict waits (the log's witnesses have not cosigned the write yet), or None.
    pending: str | None = None
    # Seats whose commands no seat key proves theirs (domain/signature_check.py): reported, never as proven.
    unsigned_seats: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing failed."""
        return all(check.status != "fail" for check in self.checks)

    @property
    def verdict(self) -> str:
        """FAILED when any check failed; PENDING when all held but the witnesses have not cosigned the write yet;
        UNSIGNED when all held but no key checked the receipt."""
        if not self.ok:
            return FAILED
        if self.pending is not None:
            return PENDING
        return VERIFIED if self.signed else UNSIGNED

    def add(self, name: str, ok: bool | None, detail: str = "") -> None:
        """Record a check (`None` = skipped)."""
        self.checks.append(Check(name, "skip" if ok is None else "pass" if ok else "fail", detail))

    def as_dict(self) -> dict:
        """JSON form of the whole report."""
        return {
            "source": self.source,
            "ok": self.ok,
            "verdict": self.verdict,
            "match_id": self.match_id,
            "ruleset": self.ruleset,
            "records": self.records,
            "checks": [c.as_dict() for c in self.checks],
            "calls": self.calls,
            "disputes": self.disputes,
            "unsigned_seats": self.unsigned_seats,
        }


def add_unforeseen(report: Report, exc: Exception) -> None:
    """The failed check for content no check foresaw, which ends the verification."""
    report.add("content", False, f"the export cannot be checked: {type(exc).__name__}: {exc}")
