from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 40), "float32"), C: T.Buffer((4, 40), "float32")):
    T.func_attr({"tir.noalias": True})
    for tx in T.thread_binding(4, thread="threadIdx.x"):
        for a, c in T.grid(40, 40):
            with T.block("C"):
                v_tx, v_a, v_c = T.axis.remap("SSR", [tx, a, c])
                T.reads(A[v_tx, v_c])
                T.writes(C[v_tx, v_a])
                with T.init():
                    C[v_tx, v_a] = T.float32(0)
                C[v_tx, v_a] = C[v_tx, v_a] + T.if_then_else(v_c <= v_a, A[v_tx, v_c], T.float32(0))
