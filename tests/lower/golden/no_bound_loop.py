from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((10,), "float32"), C: T.Buffer((10,), "float32")):
    T.func_attr({"tir.noalias": True})
    for unit_tx in T.thread_binding(1, thread="threadIdx.x"):
        for a in T.serial(10):
            with T.block("C"):
                v_a = T.axis.remap("S", [a])
                T.reads(A[T.min(v_a, v_a - 1):T.max(v_a, v_a - 1) + 1])
                T.writes(C[v_a])
                C[v_a] = T.if_then_else(v_a - 1 < 0, A[v_a], A[v_a - 1] + A[v_a])
