from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((3, 64, 4), "float32"), C: T.Buffer((3, 64, 4), "float32")):
    T.func_attr({"tir.noalias": True})
    for a in T.serial(3):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            for by in T.thread_binding(4, thread="blockIdx.y"):
                with T.block("C"):
                    v_a, v_tx, v_by = T.axis.remap("SSS", [a, tx, by])
                    T.reads(A[v_a, v_tx, v_by])
                    T.writes(C[v_a, v_tx, v_by])
                    C[v_a, v_tx, v_by] = A[v_a, v_tx, v_by] * T.float32(2)
