from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((16, 10), "float32"), C: T.Buffer((16,), "int64"), D: T.Buffer((), "float32")):
    T.func_attr({"tir.noalias": True})
    F = T.alloc_buffer((16,), "float32", scope="global")
    G = T.alloc_buffer((16,), "float32", scope="global")
    E = T.alloc_buffer((16, 10), "float32", scope="global")
    H = T.alloc_buffer((10,), "int64", scope="global")
    I = T.alloc_buffer((16,), "float32", scope="global")
    J = T.alloc_buffer((), "int64", scope="global")
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        for a in T.serial(10):
            with T.block("F"):
                v_tx, v_a = T.axis.remap("SR", [tx, a])
                T.reads(A[v_tx, v_a])
                T.writes(F[v_tx])
                with T.init():
                    F[v_tx] = T.float32("-inf")
                F[v_tx] = T.max(F[v_tx], A[v_tx, v_a])
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        for a in T.serial(10):
            with T.block("G"):
                v_tx, v_a = T.axis.remap("SR", [tx, a])
                T.reads(A[v_tx, v_a], F[v_tx])
                T.writes(G[v_tx])
                with T.init():
                    G[v_tx] = T.float32(0)
                G[v_tx] = G[v_tx] + T.exp(A[v_tx, v_a] - F[v_tx])
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        for a in T.serial(10):
            with T.block("E"):
                v_tx, v_a = T.axis.remap("SS", [tx, a])
                T.reads(A[v_tx, v_a], F[v_tx], G[v_tx])
                T.writes(E[v_tx, v_a])
                E[v_tx, v_a] = A[v_tx, v_a] - F[v_tx] - T.log(G[v_tx])
    for tx in T.thread_binding(10, thread="threadIdx.x"):
        with T.block("H"):
            v_tx = T.axis.remap("S", [tx])
            T.reads()
            T.writes(H[v_tx])
            H[v_tx] = T.if_then_else(v_tx != -100, T.int64(1), T.int64(0))
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        with T.block("I"):
            v_tx = T.axis.remap("S", [tx])
            T.reads(H[0:10], C[v_tx], E[v_tx, 0:10])
            T.writes(I[v_tx])
            I[v_tx] = T.Cast("float32", -H[C[v_tx]]) * E[v_tx, C[v_tx]]
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        with T.block("J"):
            v_tx = T.axis.remap("R", [tx])
            T.reads(H[0:10], C[v_tx])
            T.writes(J[()])
            with T.init():
                J[()] = T.int64(0)
            J[()] = J[()] + H[C[v_tx]]
    for tx in T.thread_binding(16, thread="threadIdx.x"):
        with T.block("D"):
            v_tx = T.axis.remap("R", [tx])
            T.reads(I[v_tx], J[()])
            T.writes(D[()])
            with T.init():
                D[()] = T.float32(0)
            D[()] = D[()] + I[v_tx] / T.Cast("float32", J[()])
