from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((8,), "float16"), I: T.Buffer((8,), "int32"), C: T.Buffer((8,), "float16"), D: T.Buffer((8,), "int32"), E: T.Buffer((8,), "bfloat16")):
    T.func_attr({"tir.noalias": True})
    for tx in T.thread_binding(8, thread="threadIdx.x"):
        with T.block("C"):
            v_tx = T.axis.remap("S", [tx])
            T.reads(A[v_tx], I[v_tx])
            T.writes(C[v_tx])
            C[v_tx] = A[v_tx] * T.float16(0.1) + T.Cast("float16", I[v_tx])
        with T.block("D"):
            v_tx = T.axis.remap("S", [tx])
            T.reads(I[v_tx])
            T.writes(D[v_tx])
            D[v_tx] = T.Cast("int32", T.Cast("int64", T.floordiv(I[v_tx], T.int32(3))) + T.Cast("int64", T.floormod(I[v_tx], T.int32(3))) * v_tx - 7)
        with T.block("E"):
            v_tx = T.axis.remap("S", [tx])
            T.reads(A[v_tx])
            T.writes(E[v_tx])
            E[v_tx] = T.Cast("bfloat16", T.Cast("float32", T.sqrt(T.abs(A[v_tx]))) + T.Cast("float32", T.bfloat16(0.334)))
