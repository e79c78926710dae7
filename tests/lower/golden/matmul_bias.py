from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8, 16), "float32"), C: T.Buffer((16, 12), "float32"), E: T.Buffer((12,), "float32"), D: T.Buffer((8, 12), "float32")):
    T.func_attr({"tir.noalias": True})
    for tx in T.thread_binding(8, thread="threadIdx.x"):
        for a, c in T.grid(12, 16):
            with T.block("D"):
                v_tx, v_a, v_c = T.axis.remap("SSR", [tx, a, c])
                T.reads(A[v_tx, v_c], C[v_c, v_a])
                T.writes(D[v_tx, v_a])
                with T.init():
                    D[v_tx, v_a] = T.float32(0)
                D[v_tx, v_a] = D[v_tx, v_a] + A[v_tx, v_c] * C[v_c, v_a]
    for tx in T.thread_binding(8, thread="threadIdx.x"):
        for a in T.serial(12):
            with T.block("D_1"):
                v_tx, v_a = T.axis.remap("SS", [tx, a])
                T.reads(D[v_tx, v_a], E[v_a])
                T.writes(D[v_tx, v_a])
                D[v_tx, v_a] = D[v_tx, v_a] + E[v_a]
