"""A tiny classic-BPF assembler for seccomp filters: instructions with named jump targets.

Classic BPF jumps only forward, by 8-bit offsets counted from the next instruction; writing them by
hand is where filters go wrong, so the policy (``seccomp``) names its targets and ``assemble``
counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
ALU_AND_K = 0x54  # BPF_ALU | BPF_AND | BPF_K
JA = 0x05  # BPF_JMP | BPF_JA
JEQ_K = 0x15
JGE_K = 0x35
JSET_K = 0x45
RET_K = 0x06

MAX_PROGRAM = 4096  # instructions the kernel accepts in one filter

# Offsets in struct seccomp_data; args[i] sits at 16 + 8 i, its low word first (little endian).
OFF_NR = 0
OFF_ARCH = 4
OFF_ARGS = 16

Insn = tuple[int, int, int, int]  # (code, jt, jf, k), as the kernel wants them


class Op(NamedTuple):
    """One instruction whose jump targets are still label names (None: fall through; JA jumps to ``jt``)."""

    code: int
    k: int = 0
    jt: str | None = None
    jf: str | None = None


class Label(NamedTuple):
    """A jump target between instructions."""

    name: str


Item = Op | Label


def load_arg(index: int) -> Op:
    """Load the low 32 bits of argument ``index``: pid_t, int flags and modes live there."""
    return Op(LD_W_ABS, OFF_ARGS + 8 * index)


def ret(action: int) -> Op:
    return Op(RET_K, action)


def _label_positions(items: Sequence[Item]) -> dict[str, int]:
    """Each label's position: the index of the instruction that follows it."""
    positions: dict[str, int] = {}
    index = 0
    for item in items:
        if isinstance(item, Label):
            if item.name in positions:
                raise ValueError(f"label {item.name} defined twice")
            positions[item.name] = index
        else:
            index += 1
    return positions


def _offset(positions: dict[str, int], here: int, target: str | None, limit: int) -> int:
    if target is None:
        return 0
    distance = positions[target] - here - 1
    if not 0 <= distance <= limit:
        raise ValueError(f"jump to {target} out of range ({distance})")
    return distance


def assemble(items: Sequence[Item]) -> list[Insn]:
    """The program, labels resolved into the relative offsets classic BPF uses."""
    positions = _label_positions(items)
    program: list[Insn] = []
    for op in (item for item in items if isinstance(item, Op)):
        here = len(program)
        if op.code == JA:
            program.append((op.code, 0, 0, _offset(positions, here, op.jt, 0xFFFFFFFF)))
        else:
            jt = _offset(positions, here, op.jt, 255)
            jf = _offset(positions, here, op.jf, 255)
            program.append((op.code, jt, jf, op.k & 0xFFFFFFFF))
    if len(program) > MAX_PROGRAM:
        raise ValueError(f"a seccomp program holds at most {MAX_PROGRAM} instructions")
    return program
