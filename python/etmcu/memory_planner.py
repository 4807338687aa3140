"""Static memory planner: every non-constant tensor gets (memory_id, byte offset) at export time.

Algorithm
1. Buffers. Tensors that must share bytes are merged into one buffer with union-find:
   views (`etmcu::alias`: reshape/flatten/...), and - when `inplace` is on - the output of an
   op with an input its alias contract allows (lowering/schemas.py INPLACE_ARGS) that dies at
   that instruction, has the same shape, dtype and dim order, and is neither a method input nor
   output (the kernel may then write over its input: out[i] depends only on in[i]).
2. Lifetimes over the instruction order: a buffer is live from the instruction that writes it
   (method inputs: from "before instruction 0") to the last instruction that reads it (method
   outputs: to "after the last instruction"). Intervals are inclusive, so an op's inputs and
   outputs are live at the same time and never overlap in memory, except for
   offset overlaps: an op whose kernel may write its out over a dying input (lowering/
   overlap.py: the out begins d bytes before the input, or e bytes after it where the kernel
   then runs its loops last to first; both derived from the kernel's loop order) gets one
   composite buffer, out at 0 and the input at align_up(d) (pairs), or, along a chain of such
   ops, one composite for the whole chain with each link's direction chosen to keep it narrow
   (_chains); the plan is made without composites, with the pairs and with the chains, and the
   smallest kept; then links are dropped one at a time (splitting their chain) where that lowers
   the total, and then where the total stays the same: an out over its input costs its kernel
   (slabs, strips set up again, loops last to first), so a plan keeps only the overlaps its
   bytes need (MobileNetV1-0.25: 8 of 32, the same 40,576 B). overlap="every" keeps the others
   too (the tests of the kernels' overlap paths).
3. Placement: greedy best-fit by size. Buffers are visited largest first (ties: earlier start,
   then id, so the result is deterministic); for each, the buffers already placed in the same
   region whose lifetimes intersect are sorted by offset and the smallest gap that fits is taken
   (the end of the region if none fits). Offsets and sizes are rounded to `alignment` (16, like
   upstream); a composite is placed as a group at the lowest offset where every member clears
   the buffers placed over its own lifetime. The pass is repeated with three other visit orders (size x lifetime, longest
   lifetime first, first use) and the smallest total is kept; ties keep the by-size result. With several regions (memory_id 1..n, each with an optional byte budget), a
   buffer goes to the first region where it fits within the budget.
4. Report: planned bytes per region and the lower bound = max over instructions of the bytes
   of simultaneously live buffers (aligned sizes; no placement can beat it), and the naive
   floor = max over instructions of the bytes of the distinct whole tensors one instruction
   reads and writes (its inputs + outputs, views counted once, scratch and constants excluded):
   no plan that keeps each tensor whole and never overlaps an op's input with its output can
   go below it (with composites, `planned_bytes` may).
"""

from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from .errors import ExportError


def align_up(n, a):
    return (n + a - 1) // a * a


@dataclass
class MemoryPlan:
    placement: Dict[int, Tuple[int, int]]      # tensor id -> (memory_id, offset)
    region_sizes: List[int]                    # bytes per region, memory_id = index + 1
    lower_bound: int
    peak_instruction: int
    buffers: int
    inplace_reuses: int = 0
    alignment: int = 16
    naive_floor: int = 0
    floor_instruction: int = -1
    overlaps: int = 0            # composites: outs placed over the start of a dying input

    @property
    def planned_bytes(self):
        return sum(self.region_sizes)


class _UnionFind:
    def __init__(self):
        self.parent = {}

    def find(self, x):
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            # Keep the older (smaller id) root so results do not depend on visiting order.
            if rb < ra:
                ra, rb = rb, ra
            self.parent[rb] = ra
        return ra


def plan_memory(method, regions: Optional[List[Optional[int]]] = None, alignment=16,
                inplace=True, overlap=True) -> MemoryPlan:
    """Plan all non-constant tensors of a lowered Method (see module docstring)."""
    regions = list(regions) if regions else [None]
    tensors = {tid: t for tid, t in method.tensors.items() if not t.is_const}
    n_instr = len(method.instructions)
    uf = _UnionFind()
    for tid in tensors:
        uf.find(tid)
    for src, dst in method.aliases:
        uf.union(src, dst)

    io = {t.id for t in method.input_tensors} | {t.id for t in method.output_tensors}
    floor, floor_k = naive_floor(method, tensors, uf)

    def lifetimes():
        start, end = {}, {}
        for tid in tensors:
            r = uf.find(tid)
            start.setdefault(r, None)
        for t in method.input_tensors:
            r = uf.find(t.id)
            start[r] = -1
        for k in range(n_instr):
            for tid in method.writes[k]:
                r = uf.find(tid)
                if start[r] is None or k < start[r]:
                    start[r] = k
                end[r] = max(end.get(r, k), k)
            for tid in method.reads[k]:
                r = uf.find(tid)
                end[r] = max(end.get(r, k), k)
        for t in method.output_tensors:
            end[uf.find(t.id)] = n_instr
        for r in list(start):
            if start[r] is None:          # never written (e.g. an unused view): keep it valid
                start[r] = -1
            end.setdefault(r, start[r])
        return start, end

    reuses = 0
    if inplace:
        # Decide in-place reuse in instruction order; a merge extends the input's buffer.
        start, end = lifetimes()
        group_io = {}
        for tid in io:
            group_io[uf.find(tid)] = True
        for k in range(n_instr):
            if not method.inplace_ok[k] or len(method.writes[k]) != 1:
                continue
            out = method.writes[k][0]
            if uf.find(out) in group_io:
                continue
            o = tensors[out]
            for tid in method.inplace_args[k]:
                r, t = uf.find(tid), tensors[tid]
                if r in group_io or end[r] != k or t.nbytes != o.nbytes:
                    continue
                # The contract is element i over element i: the same logical shape is not
                # enough, the same memory order (dim order) and element type are needed too.
                if t.shape != o.shape or t.order != o.order or t.dtype != o.dtype:
                    continue
                ro = uf.find(out)
                new = uf.union(r, ro)
                s, e = min(start[r], start[ro]), max(end[r], end[ro])
                start[new], end[new] = s, e
                reuses += 1
                break
        start, end = lifetimes()
    else:
        start, end = lifetimes()

    size = {}
    for tid, t in tensors.items():
        r = uf.find(tid)
        size[r] = max(size.get(r, 0), align_up(t.nbytes, alignment))

    candidates = [{}]
    if overlap:   # keep the composites only where they lower the total
        for shift in (_composites(method, uf, start, end, alignment),
                      _chains(method, uf, start, end, size, alignment)):
            if shift and shift not in candidates:
                candidates.append(shift)
    best = None
    for sh in candidates:
        res = _plan_roots(sh, size, start, end, regions, alignment, n_instr)
        if best is None or sum(res[1]) < sum(best[1]):
            best = res
    if overlap:
        # A chain's composite is reserved for the whole chain, so a link whose tensors outlive
        # their neighbours (a residual branch's input) can cost more than it saves: drop links
        # one at a time (instruction order), keeping each drop that lowers the total.
        dropped = set()
        for k, ov in enumerate(getattr(method, "overlaps", [])):
            if ov is None:
                continue
            sh = _chains(method, uf, start, end, size, alignment, dropped | {k})
            res = _plan_roots(sh, size, start, end, regions, alignment, n_instr)
            if sum(res[1]) < sum(best[1]):
                best, dropped = res, dropped | {k}
        # Then every link the total does not need: an out over its input costs its kernel (slabs
        # of rows, strips set up again, loops run last to first), so at equal bytes none is kept
        # (overlap="every" keeps them: the tests of the kernels' overlap paths).
        for k, ov in enumerate(getattr(method, "overlaps", []) if overlap != "every" else []):
            if ov is None or k in dropped:
                continue
            sh = _chains(method, uf, start, end, size, alignment, dropped | {k})
            if len(sh) >= len(best[5]):
                continue
            res = _plan_roots(sh, size, start, end, regions, alignment, n_instr)
            if sum(res[1]) <= sum(best[1]):
                best, dropped = res, dropped | {k}
    where, region_sizes, lower, peak, nroots, sh = best
    placement = {}
    for tid in tensors:
        r = uf.find(tid)
        host, off = sh.get(r, (r, 0))
        mem, base = where[host]
        placement[tid] = (mem, base + off)
    return MemoryPlan(placement, region_sizes, lower, peak, nroots, reuses, alignment,
                      floor, floor_k, len(sh))


def _composites(method, uf, start, end, alignment):
    """Offset overlaps (lowering/overlap.py): for an instruction whose op lets its out start d
    bytes before an input that dies there, the two buffers become one composite: out's buffer at
    0, the input's at align_up(d). Returns {input root: (host root, offset)}; _plan_roots widens
    the host's size and lifetime to the composite."""
    shift, hosts = {}, set()
    for k, ov in enumerate(getattr(method, "overlaps", [])):
        if ov is None:
            continue
        tin, tout, d = ov[:3]
        if d is None:
            continue
        ri, ro = uf.find(tin), uf.find(tout)
        # A method input may be overwritten once dead (inputs are set before every execute);
        # an output never dies before the end, so end[ri] != k excludes it.
        if ri == ro:
            continue
        if ri in shift or ro in shift or ri in hosts or ro in hosts:
            continue
        if end[ri] != k or start[ro] != k:
            continue
        shift[ri] = (ro, align_up(max(d, 0), alignment))
        hosts.add(ro)
    return shift


def _chains(method, uf, start, end, size, alignment, dropped=frozenset()):
    """Offset overlaps along chains: where an op's out is itself the dying input of the next
    overlap, the whole chain becomes one composite. Each link places its out d bytes before its
    input (the kernel's loops first to last) or e bytes after it (last to first), whichever keeps
    the chain's span smaller, so a chain of such layers (DS-CNN's depthwise/pointwise pairs) stays
    about one tensor plus one distance wide instead of drifting by d per layer. Returns
    {member root: (host root, offset)}, the host being the member at the lowest address.
    `dropped`: instructions whose links are left out (the chain splits there)."""
    links, outs = {}, set()
    for k, ov in enumerate(getattr(method, "overlaps", [])):
        if ov is None or k in dropped:
            continue
        tin, tout, d = ov[:3]
        e = ov[3] if len(ov) > 3 else None
        ri, ro = uf.find(tin), uf.find(tout)
        if ri == ro or end[ri] != k or start[ro] != k or ri in links or ro in outs:
            continue
        links[ri] = (ro, d, e)
        outs.add(ro)
    shift = {}
    for head in sorted(r for r in links if r not in outs):
        pos, cur = {head: 0}, head
        lo, hi = 0, size[head]
        while cur in links:
            ro, d, e = links[cur]
            options = []
            if d is not None:
                options.append(pos[cur] - align_up(max(d, 0), alignment))
            if e is not None:
                options.append(pos[cur] + align_up(max(e, 0), alignment))
            # the smaller span, then the position nearer the chain's start
            p = min(options, key=lambda q: (max(hi, q + size[ro]) - min(lo, q), abs(q)))
            pos[ro] = p
            lo, hi = min(lo, p), max(hi, p + size[ro])
            cur = ro
        host = min(pos, key=lambda r: (pos[r], r))
        for r, p in pos.items():
            if r != host:
                shift[r] = (host, p - pos[host])
    return shift


def _plan_roots(shift, size, start, end, regions, alignment, n_instr):
    """Lower bound and best placement of the buffers. A composite (shift) is placed as one group:
    its host and members at their fixed offsets, each member keeping its own lifetime (bytes of
    a member that is dead may hold other buffers)."""
    members = {r: [(r, 0)] for r in size if r not in shift}
    for r, (host, off) in sorted(shift.items()):
        members[host].append((r, off))
    gsize = {h: max(o + size[r] for r, o in ms) for h, ms in members.items()}
    gstart = {h: min(start[r] for r, _ in ms) for h, ms in members.items()}
    gend = {h: max(end[r] for r, _ in ms) for h, ms in members.items()}
    roots = sorted(members)

    # Lower bound: max over instruction slots (-1 .. n_instr) of live bytes (a composite counts
    # the span of its live members).
    lower, peak = 0, -1
    for k in range(-1, n_instr + 1):
        live = 0
        for h in roots:
            ms = [(o, size[r]) for r, o in members[h] if start[r] <= k <= end[r]]
            if ms:
                live += max(o + z for o, z in ms) - min(o for o, _ in ms)
        if live > lower:
            lower, peak = live, k

    orders = [
        sorted(roots, key=lambda r: (-gsize[r], gstart[r], r)),                  # best-fit by size
        sorted(roots, key=lambda r: (-gsize[r] * (gend[r] - gstart[r] + 1), r)),  # by area
        sorted(roots, key=lambda r: (-(gend[r] - gstart[r]), -gsize[r], r)),     # longest first
        sorted(roots, key=lambda r: (gstart[r], -gsize[r], r)),                  # by first use
    ]
    best = None
    for order in orders:
        try:
            where, region_sizes = _place(order, members, size, start, end, regions)
        except ExportError:
            if order is orders[0]:
                raise
            continue
        if best is None or sum(region_sizes) < sum(best[1]):
            best = (where, region_sizes)
    where, region_sizes = best
    return where, region_sizes, lower, peak, len(roots), shift


def naive_floor(method, tensors, uf):
    """(bytes, instruction) of the largest inputs + outputs of one instruction (module docstring)."""
    best, where = 0, -1
    for k in range(len(method.instructions)):
        roots = {}
        for tid in list(method.reads[k]) + list(method.writes[k]):
            t = tensors.get(tid)
            if t is None or t.scratch:
                continue
            r = uf.find(tid)
            roots[r] = max(roots.get(r, 0), t.nbytes)
        total = sum(roots.values())
        if total > best:
            best, where = total, k
    return best, where


def _place(order, members, size, start, end, regions):
    """Best-fit placement of buffers in `order` (composites: first fit of the whole group, every
    member clear of the buffers placed over its own lifetime); returns
    ({root: (mem_id, offset)}, sizes)."""
    placed = {i: [] for i in range(len(regions))}      # region -> [(offset, size, start, end)]
    where = {}
    for r in order:
        ms = members[r]
        gsz = max(o + size[m] for m, o in ms)
        for ri, budget in enumerate(regions):
            if len(ms) == 1:
                s, e, sz = start[r], end[r], size[r]
                busy = sorted((o, z) for o, z, bs, be in placed[ri] if not (be < s or e < bs))
                best, cursor = None, 0
                for o, z in busy:
                    gap = o - cursor
                    if gap >= sz and (best is None or gap < best[1]):
                        best = (cursor, gap)
                    cursor = max(cursor, o + z)
                offset = best[0] if best is not None else cursor
            else:
                busy = [[(o, z) for o, z, bs, be in placed[ri]
                         if not (be < start[m] or end[m] < bs)] for m, _ in ms]
                cands = sorted({0} | {o + z - off for (m, off), b in zip(ms, busy)
                                      for o, z in b if o + z - off >= 0})
                offset = next(c for c in cands if all(
                    c + off + size[m] <= o or o + z <= c + off
                    for (m, off), b in zip(ms, busy) for o, z in b))
            if budget is not None and offset + gsz > budget:
                continue
            for m, off in ms:
                placed[ri].append((offset + off, size[m], start[m], end[m]))
            where[r] = (ri + 1, offset)
            break
        else:
            raise ExportError(f"memory plan does not fit: a {gsz}-byte buffer fits in no region "
                              f"(budgets {regions})", op="memory_plan")
    region_sizes = [max((o + z for o, z, _, _ in placed[i]), default=0) for i in range(len(regions))]
    return where, region_sizes
