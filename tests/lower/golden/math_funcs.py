from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((3, 4), "float64"), C: T.Buffer((3, 4), "float64"), E: T.Buffer((3, 4), "bool")):
    T.func_attr({"tir.noalias": True})
    for unit_tx in T.thread_binding(1, thread="threadIdx.x"):
        for a, c in T.grid(3, 4):
            with T.block("C"):
                v_a, v_c = T.axis.remap("SS", [a, c])
                T.reads(A[v_a, v_c])
                T.writes(C[v_a, v_c])
                C[v_a, v_c] = T.pow(T.erf(A[v_a, v_c]), T.float64(2)) + T.min(T.log(T.abs(A[v_a, v_c]) + T.float64(1)), -(A[v_a, v_c] - (T.float64(1) - A[v_a, v_c])))
            with T.block("E"):
                v_a, v_c = T.axis.remap("SS", [a, c])
                T.reads(A[v_a, v_c])
                T.writes(E[v_a, v_c])
                E[v_a, v_c] = (A[v_a, v_c] > T.float64(0) or v_a == v_c) and (1 <= v_c and v_c < 3)
