"""Combat: declaring attackers, assigning blockers (Guard first), resolving damage.

Units do not tap: any unit without Summoning Weakness (or with Rush) may attack every turn, and
every unit of the defender may block (one blocker per attacker, house rule). Guard (house
ruling of the seed's "attackers must target it"): a Guard unit able to block must block while
attackers are left, so non-Guard units block only once every Guard unit is blocking.
"""

from __future__ import annotations

import itertools

from domain.choices import Choice, pair_part, pairs, sequence_of
from domain.ruleset import RuleViolation

from .commands import AssignBlockers
from .effects import keywords
from .parts import combat_public
from .payloads import AttackDeclared, BlockersAssigned, BlocksAwaited
from .phases import attack_candidates
from .scratch import TcgDecision
from .shapes import TcgState, combat_of, find_unit, opponent
from .turns import begin_phase, open_window


def check_attack(state: TcgState, seat: str, attackers: tuple[str, ...], target: str | None) -> str:
    """Raise RuleViolation unless the attack is legal; return the attacked seat."""
    target = target or opponent(seat)
    if target == seat or target not in state["seats"]:
        raise RuleViolation("bad_target_player", "attack an opponent")
    if len(set(attackers)) != len(attackers):
        raise RuleViolation("duplicate_attacker", "a unit attacks at most once")
    able = attack_candidates(state, seat)
    for unit in attackers:
        controller, _ = find_unit(state, unit)
        if controller != seat:
            raise RuleViolation("not_your_unit", f"{unit!r} is not a unit of yours in play")
        if unit not in able:
            raise RuleViolation("summoning_weakness", f"{unit} entered play this turn and has no Rush")
    return target


def declare_attack(decision: TcgDecision, seat: str, attackers: tuple[str, ...], target: str) -> None:
    """Declare the attack; it opens the attack_declared window (or goes straight on)."""
    decision.add(AttackDeclared(seat=seat, target=target, attackers=list(attackers)).event())
    if not attackers:
        begin_phase(decision, "main2")
        return
    if not open_window(decision, "attack_declared"):
        after_attack_window(decision)


def after_attack_window(decision: TcgDecision) -> None:
    """After the attack_declared window: ask for blockers if the defender has units, else resolve."""
    combat = combat_of(decision.state)
    if combat["attackers"] and decision.state["players"][combat["target"]]["units"]:
        decision.add(BlocksAwaited(seat=combat["target"], attackers=list(combat["attackers"])).event())
    else:
        resolve_combat(decision)


def guard_ok(state: TcgState, defender: str, attackers: list[str], blocks: dict[str, str]) -> bool:
    """Whether a block assignment honours Guard: as many Guard units block as can."""
    guards = [u["card"] for u in state["players"][defender]["units"] if "guard" in keywords(state, u)]
    blocking = sum(1 for g in guards if g in blocks)
    return blocking >= min(len(guards), len(attackers))


def check_blocks(state: TcgState, seat: str, blocks: dict[str, str]) -> None:
    """Raise RuleViolation unless `blocks` (blocker → attacker) is a legal assignment for `seat`."""
    combat = combat_of(state)
    for blocker, attacker in blocks.items():
        if find_unit(state, blocker)[0] != seat:
            raise RuleViolation("not_your_unit", f"{blocker!r} is not a unit of yours in play")
        if attacker not in combat["attackers"]:
            raise RuleViolation("not_attacking", f"{attacker!r} is not attacking")
    if len(set(blocks.values())) != len(blocks):
        raise RuleViolation("attacker_already_blocked", "one blocker per attacker")
    if not guard_ok(state, seat, combat["attackers"], blocks):
        raise RuleViolation("guard_must_block", "Guard units must be chosen as blockers first")


def block_choices(state: TcgState, seat: str) -> list[Choice]:
    """Every legal block assignment: for each set of blockers that honours Guard, any distinct attackers.

    Guard depends only on which units block, so each such set of blockers is one family whose
    attackers are a sequence (the i-th blocker blocks the i-th attacker).
    """
    attackers = combat_of(state)["attackers"]
    units = [u["card"] for u in state["players"][seat]["units"]]
    out = []
    for size in range(min(len(units), len(attackers)) + 1):
        for chosen in itertools.combinations(units, size):
            if guard_ok(state, seat, attackers, dict.fromkeys(chosen, "")):
                domain = pairs([pair_part(list(chosen), sequence_of(attackers, size, size))])
                out.append(Choice(AssignBlockers, {}, {"blocks": domain}))
    return out


def assign_blockers(decision: TcgDecision, seat: str, blocks: dict[str, str]) -> None:
    """Record the blocks and resolve the combat."""
    decision.add(BlockersAssigned(seat=seat, blocks=dict(blocks)).event())
    resolve_combat(decision)


def resolve_combat(decision: TcgDecision) -> None:
    """Blocked pairs trade Might for damage; unblocked attackers hit the player; then Main 2."""
    decision.emit("CombatResolved", combat_public(decision.state))
    decision.settle()
    begin_phase(decision, "main2")
