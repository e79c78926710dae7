from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 5, 6), "float32"), C: T.Buffer((4, 6), "int64")):
    T.func_attr({"tir.noalias": True})
    D = T.alloc_buffer((4, 6), "float32", scope="global")
    for tx in T.thread_binding(4, thread="threadIdx.x"):
        for a, c in T.grid(5, 6):
            with T.block("D"):
                v_tx, v_a, v_c = T.axis.remap("SRS", [tx, a, c])
                T.reads(A[v_tx, v_a, v_c])
                T.writes(D[v_tx, v_c])
                with T.init():
                    D[v_tx, v_c] = T.float32("-inf")
                D[v_tx, v_c] = T.max(D[v_tx, v_c], A[v_tx, v_a, v_c])
            with T.block("C"):
                v_tx, v_c = T.axis.remap("SS", [tx, c])
                T.reads()
                T.writes(C[v_tx, v_c])
                C[v_tx, v_c] = T.int64(0)
    for tx in T.thread_binding(4, thread="threadIdx.x"):
        for a, c in T.grid(5, 6):
            with T.block("C_1"):
                v_tx, v_a, v_c = T.axis.remap("SRS", [tx, a, c])
                T.reads(A[v_tx, v_a, v_c], D[v_tx, v_c], C[v_tx, v_c])
                T.writes(C[v_tx, v_c])
                C[v_tx, v_c] = T.if_then_else(A[v_tx, v_a, v_c] >= D[v_tx, v_c], v_a, C[v_tx, v_c])
