from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((2, 3, 16), "float32"), C: T.Buffer((2, 3, 8), "float32")):
    T.func_attr({"tir.noalias": True})
    D = T.alloc_buffer((2, 3, 20), "float32", scope="global")
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        for a, c in T.grid(3, 20):
            with T.block("D"):
                v_tx, v_a, v_c = T.axis.remap("SSS", [tx, a, c])
                T.reads(A[v_tx, v_a, v_c - 2])
                T.writes(D[v_tx, v_a, v_c])
                D[v_tx, v_a, v_c] = T.if_then_else(2 <= v_c and v_c < 18, A[v_tx, v_a, v_c - 2], T.float32("-inf"))
    for tx in T.thread_binding(2, thread="threadIdx.x"):
        for a, c, d in T.grid(3, 8, 4):
            with T.block("C"):
                v_tx, v_a, v_c, v_d = T.axis.remap("SSSR", [tx, a, c, d])
                T.reads(D[v_tx, v_a, v_c * 2 + v_d])
                T.writes(C[v_tx, v_a, v_c])
                with T.init():
                    C[v_tx, v_a, v_c] = T.float32("-inf")
                C[v_tx, v_a, v_c] = T.max(C[v_tx, v_a, v_c], D[v_tx, v_a, v_c * 2 + v_d])
