"""The lowering shares read-only argument values (scalars, None, int/float lists) between calls:
each EValue costs the method allocator, no kernel writes a non-tensor argument. Equal-looking
doubles that differ (-0.0 / 0.0) stay apart; tensors are never shared."""

from etmcu.ir import Graph, Node
from etmcu.lowering.emit import lower


def test_scalars_and_lists_are_shared_once():
    g = Graph()
    x = g.new_tensor((2, 3))
    ys = [g.new_tensor((2, 3)) for _ in range(4)]
    g.inputs = [x]
    g.nodes = [Node("aten::add.Scalar_out", [x, 1.0, 1], [ys[0]]),
               Node("aten::add.Scalar_out", [ys[0], 1.0, 1], [ys[1]]),
               Node("aten::add.Scalar_out", [ys[1], -0.0, 1], [ys[2]]),
               Node("aten::add.Scalar_out", [ys[2], 0.0, 1], [ys[3]])]
    g.outputs = [ys[3]]
    m = lower(g)
    kinds = [k for k, _ in m.values]
    doubles = [p for k, p in m.values if k == "Double"]
    assert sorted(map(repr, doubles)) == ["-0.0", "0.0", "1.0"]     # 1.0 once, -0.0 apart
    assert [p for k, p in m.values if k == "Int"] == [1]            # alpha once
    assert kinds.count("Tensor") == 5                                 # x and four outs
    # the calls still see their own arguments
    args = [a for _, a in m.instructions]
    assert args[0][1] == args[1][1] != args[2][1] != args[3][1]
