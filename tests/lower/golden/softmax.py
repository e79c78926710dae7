from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((6, 20), "float32"), C: T.Buffer((6, 20), "float32")):
    T.func_attr({"tir.noalias": True})
    M = T.alloc_buffer((6,), "float32", scope="global")
    E = T.alloc_buffer((6, 20), "float32", scope="global")
    S = T.alloc_buffer((6,), "float32", scope="global")
    for tx in T.thread_binding(6, thread="threadIdx.x"):
        for a in T.serial(20):
            with T.block("M"):
                v_tx, v_a = T.axis.remap("SR", [tx, a])
                T.reads(A[v_tx, v_a])
                T.writes(M[v_tx])
                with T.init():
                    M[v_tx] = T.float32("-inf")
                M[v_tx] = T.max(M[v_tx], A[v_tx, v_a])
    for tx in T.thread_binding(6, thread="threadIdx.x"):
        for a in T.serial(20):
            with T.block("E"):
                v_tx, v_a = T.axis.remap("SS", [tx, a])
                T.reads(A[v_tx, v_a], M[v_tx])
                T.writes(E[v_tx, v_a])
                E[v_tx, v_a] = T.exp(A[v_tx, v_a] - M[v_tx])
            with T.block("S"):
                v_tx, v_a = T.axis.remap("SR", [tx, a])
                T.reads(E[v_tx, v_a])
                T.writes(S[v_tx])
                with T.init():
                    S[v_tx] = T.float32(0)
                S[v_tx] = S[v_tx] + E[v_tx, v_a]
    for tx in T.thread_binding(6, thread="threadIdx.x"):
        for a in T.serial(20):
            with T.block("C"):
                v_tx, v_a = T.axis.remap("SS", [tx, a])
                T.reads(E[v_tx, v_a], S[v_tx])
                T.writes(C[v_tx, v_a])
                C[v_tx, v_a] = E[v_tx, v_a] / S[v_tx]
