from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((5, 6), "float32"), C: T.Buffer((5,), "float32"), D: T.Buffer((5, 6), "float32")):
    T.func_attr({"tir.noalias": True})
    for tx in T.thread_binding(5, thread="threadIdx.x"):
        for a in T.serial(6):
            with T.block("C"):
                v_tx, v_a = T.axis.remap("SR", [tx, a])
                T.reads(A[v_tx, v_a])
                T.writes(C[v_tx])
                with T.init():
                    C[v_tx] = T.float32(0)
                C[v_tx] = C[v_tx] + A[v_tx, v_a]
            for c in T.serial(6):
                with T.block("D"):
                    v_tx, v_c = T.axis.remap("SS", [tx, c])
                    T.reads(A[v_tx, v_c], C[v_tx])
                    T.writes(D[v_tx, v_c])
                    D[v_tx, v_c] = A[v_tx, v_c] - C[v_tx] / T.float32(6)
