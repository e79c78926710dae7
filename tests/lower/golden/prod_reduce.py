from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((3, 5, 7), "float32"), C: T.Buffer((3, 7), "float32")):
    T.func_attr({"tir.noalias": True})
    for tx in T.thread_binding(3, thread="threadIdx.x"):
        for a, c in T.grid(5, 7):
            with T.block("C"):
                v_tx, v_a, v_c = T.axis.remap("SRS", [tx, a, c])
                T.reads(A[v_tx, v_a, v_c])
                T.writes(C[v_tx, v_c])
                with T.init():
                    C[v_tx, v_c] = T.float32(1)
                C[v_tx, v_c] = C[v_tx, v_c] * A[v_tx, v_a, v_c]
