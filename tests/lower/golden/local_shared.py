from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32"), D: T.Buffer((4, 8), "float32")):
    T.func_attr({"tir.noalias": True})
    S = T.alloc_buffer((4, 8), "float32", scope="shared")
    O = T.alloc_buffer((4, 8), "float32", scope="local")
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(8, thread="threadIdx.x"):
            with T.block("S"):
                v_bx, v_tx = T.axis.remap("SS", [bx, tx])
                T.reads(A[v_bx, v_tx])
                T.writes(S[v_bx, v_tx])
                S[v_bx, v_tx] = A[v_bx, v_tx] * A[v_bx, v_tx]
            with T.block("D"):
                v_bx, v_tx = T.axis.remap("SS", [bx, tx])
                T.reads(S[v_bx, v_tx])
                T.writes(D[v_bx, v_tx])
                D[v_bx, v_tx] = S[v_bx, v_tx] + T.float32(1)
    for tx in T.thread_binding(4, thread="threadIdx.x"):
        for a in T.serial(8):
            with T.block("O"):
                v_tx, v_a = T.axis.remap("SS", [tx, a])
                T.reads(A[v_tx, v_a])
                T.writes(O[v_tx, v_a])
                O[v_tx, v_a] = A[v_tx, v_a] * T.float32(2)
        for a in T.serial(8):
            with T.block("C"):
                v_tx, v_a = T.axis.remap("SS", [tx, a])
                T.reads(O[v_tx, T.min(v_a, 7 - v_a):T.max(v_a, 7 - v_a) + 1])
                T.writes(C[v_tx, v_a])
                C[v_tx, v_a] = O[v_tx, v_a] + O[v_tx, 7 - v_a]
