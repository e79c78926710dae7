from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((2, 3, 10), "float32"), W: T.Buffer((4, 3, 3), "float32"), O: T.Buffer((2, 4, 10), "float32")):
    T.func_attr({"tir.noalias": True})
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        for a, c, d, f in T.grid(4, 10, 3, 3):
            with T.block("O"):
                v_tx, v_a, v_c, v_d, v_f = T.axis.remap("SSSRR", [tx, a, c, d, f])
                T.reads(A[v_tx, v_d, v_c + v_f - 1], W[v_a, v_d, v_f])
                T.writes(O[v_tx, v_a, v_c])
                with T.init():
                    O[v_tx, v_a, v_c] = T.float32(0)
                O[v_tx, v_a, v_c] = O[v_tx, v_a, v_c] + T.if_then_else(1 <= v_c + v_f and v_c + v_f < 11, A[v_tx, v_d, v_c + v_f - 1], T.float32(0)) * W[v_a, v_d, v_f]
