from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32"), S: T.Buffer((), "float32"), R: T.Buffer((4,), "float32")):
    T.func_attr({"tir.noalias": True})
    for unit_tx in T.thread_binding(1, thread="threadIdx.x"):
        for a in T.parallel(4):
            for c in T.vectorized(8):
                with T.block("C"):
                    v_a, v_c = T.axis.remap("SS", [a, c])
                    T.reads(A[v_a, v_c])
                    T.writes(C[v_a, v_c])
                    C[v_a, v_c] = A[v_a, v_c] + T.float32(1)
    for unit_tx in T.thread_binding(1, thread="threadIdx.x"):
        for a in T.serial(4):
            for c in T.unroll(8):
                with T.block("S"):
                    v_a, v_c = T.axis.remap("RR", [a, c])
                    T.reads(A[v_a, v_c])
                    T.writes(S[()])
                    with T.init():
                        S[()] = T.float32(0)
                    S[()] = S[()] + A[v_a, v_c]
    for unit_tx in T.thread_binding(1, thread="threadIdx.x"):
        for a in T.parallel(4):
            for c in T.serial(8):
                with T.block("R"):
                    v_a, v_c = T.axis.remap("SR", [a, c])
                    T.reads(A[v_a, v_c])
                    T.writes(R[v_a])
                    with T.init():
                        R[v_a] = T.float32(0)
                    R[v_a] = R[v_a] + A[v_a, v_c] * A[v_a, v_c]
