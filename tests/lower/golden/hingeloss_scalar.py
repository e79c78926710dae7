from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((12, 1), "float32"), C: T.Buffer((12, 1), "float32"), G: T.Buffer((), "float32")):
    T.func_attr({"tir.noalias": True})
    D = T.alloc_buffer((12, 1), "float32", scope="global")
    E = T.alloc_buffer((12, 1), "float32", scope="global")
    F = T.alloc_buffer((12, 1), "float32", scope="global")
    H = T.alloc_buffer((), "float32", scope="global")
    for tx in T.thread_binding(12, thread="threadIdx.x"):
        for a in T.serial(1):
            with T.block("D"):
                v_tx, v_a = T.axis.remap("SS", [tx, a])
                T.reads(A[v_tx, v_a], C[v_tx, v_a])
                T.writes(D[v_tx, v_a])
                D[v_tx, v_a] = A[v_tx, v_a] * C[v_tx, v_a]
    for tx in T.thread_binding(12, thread="threadIdx.x"):
        for a in T.serial(1):
            with T.block("E"):
                v_tx, v_a = T.axis.remap("SS", [tx, a])
                T.reads(D[v_tx, v_a])
                T.writes(E[v_tx, v_a])
                E[v_tx, v_a] = T.float32(1) - D[v_tx, v_a]
    for tx in T.thread_binding(12, thread="threadIdx.x"):
        for a in T.serial(1):
            with T.block("F"):
                v_tx, v_a = T.axis.remap("SS", [tx, a])
                T.reads(E[v_tx, v_a])
                T.writes(F[v_tx, v_a])
                F[v_tx, v_a] = T.max(E[v_tx, v_a], T.float32(0))
    for tx in T.thread_binding(12, thread="threadIdx.x"):
        for a in T.serial(1):
            with T.block("H"):
                v_tx, v_a = T.axis.remap("RR", [tx, a])
                T.reads(F[v_tx, v_a])
                T.writes(H[()])
                with T.init():
                    H[()] = T.float32(0)
                H[()] = H[()] + F[v_tx, v_a]
    for tx in T.thread_binding(1, thread="threadIdx.x"):
        with T.block("G"):
            T.reads(H[()])
            T.writes(G[()])
            G[()] = H[()] / T.float32(12)
