//===- Datatype.cpp - Flattening MPI datatypes into byte runs --------------===//
//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
#include "mpi/Datatype.h"

#include <cstring>

namespace iopoly::prof {

namespace {

struct Flattener {
  size_t MaxRuns;
  Error Err;

  void append(std::vector<TypeRun> &Out, int64_t Disp, uint64_t Len) {
    if (!Len)
      return;
    if (!Out.empty() && Out.back().Disp + static_cast<int64_t>(Out.back().Len) == Disp) {
      Out.back().Len += Len;
      return;
    }
    if (Out.size() >= MaxRuns) {
      if (Err.ok())
        Err = Error(Errc::Unsupported, strf("the datatype has more than %zu contiguous pieces", MaxRuns));
      return;
    }
    Out.push_back({Disp, Len});
  }

  /// \p N consecutive copies of a child (runs \p C, extent \p Ext) from \p Base.
  void block(std::vector<TypeRun> &Out, const std::vector<TypeRun> &C, int64_t Ext, int64_t Base, int64_t N) {
    if (N <= 0)
      return;
    if (C.size() == 1 && C[0].Disp == 0 && static_cast<int64_t>(C[0].Len) == Ext) {
      append(Out, Base, static_cast<uint64_t>(N * Ext)); // contiguous child: one run
      return;
    }
    for (int64_t I = 0; I < N && Err.ok(); ++I)
      for (const TypeRun &R : C)
        append(Out, Base + I * Ext + R.Disp, R.Len);
  }

  static int64_t extentOf(MPI_Datatype T) {
    MPI_Count Lb = 0, Ext = 0;
    PMPI_Type_get_extent_x(T, &Lb, &Ext);
    return static_cast<int64_t>(Ext);
  }

  void packFallback(MPI_Datatype T, std::vector<TypeRun> &Out) {
    MPI_Count TLb = 0, TExt = 0, Size = 0;
    PMPI_Type_get_true_extent_x(T, &TLb, &TExt);
    PMPI_Type_size_x(T, &Size);
    if (TExt > (64 << 20) || Size > (64 << 20)) {
      Err = Error(Errc::Unsupported, "a datatype of this kind is flattened only up to a 64 MiB true extent");
      return;
    }
    std::vector<unsigned char> Buf(static_cast<size_t>(TExt) + 1), Packed(static_cast<size_t>(Size) + 1);
    std::vector<uint32_t> Off(static_cast<size_t>(Size), 0);
    for (int Pass = 0; Pass < 4; ++Pass) {
      for (size_t I = 0; I < Buf.size(); ++I)
        Buf[I] = static_cast<unsigned char>(I >> (8 * Pass));
      int Pos = 0;
      // The typemap is relative to the buffer origin; the data starts at
      // the true lower bound.
      if (PMPI_Pack(Buf.data() - TLb, 1, T, Packed.data(), static_cast<int>(Packed.size()), &Pos, MPI_COMM_SELF) !=
          MPI_SUCCESS) {
        Err = Error(Errc::Unsupported, "MPI_Pack refused the datatype");
        return;
      }
      for (MPI_Count J = 0; J < Size; ++J)
        Off[static_cast<size_t>(J)] |= static_cast<uint32_t>(Packed[static_cast<size_t>(J)]) << (8 * Pass);
    }
    for (MPI_Count J = 0; J < Size; ++J)
      append(Out, static_cast<int64_t>(Off[static_cast<size_t>(J)]) + TLb, 1);
  }

  void flatten(MPI_Datatype T, std::vector<TypeRun> &Out) {
    int NI = 0, NA = 0, ND = 0, Comb = 0;
    PMPI_Type_get_envelope(T, &NI, &NA, &ND, &Comb);
    if (Comb == MPI_COMBINER_NAMED) {
      append(Out, 0, typeSize(T));
      return;
    }
    std::vector<int> I(static_cast<size_t>(NI) + 1);
    std::vector<MPI_Aint> A(static_cast<size_t>(NA) + 1);
    std::vector<MPI_Datatype> D(static_cast<size_t>(ND) + 1);
    PMPI_Type_get_contents(T, NI, NA, ND, I.data(), A.data(), D.data());
    std::vector<std::vector<TypeRun>> Kids(static_cast<size_t>(ND));
    std::vector<int64_t> KidExt(static_cast<size_t>(ND));
    bool Decoded = Comb != MPI_COMBINER_DARRAY && Comb != MPI_COMBINER_F90_REAL &&
                   Comb != MPI_COMBINER_F90_COMPLEX && Comb != MPI_COMBINER_F90_INTEGER;
    if (Decoded)
      for (int K = 0; K < ND && Err.ok(); ++K) {
        flatten(D[static_cast<size_t>(K)], Kids[static_cast<size_t>(K)]);
        KidExt[static_cast<size_t>(K)] = extentOf(D[static_cast<size_t>(K)]);
      }
    auto &C = Kids.empty() ? Out : Kids[0];
    int64_t E = KidExt.empty() ? 0 : KidExt[0];
    switch (Comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: // lb/extent only change the tiling
      for (const TypeRun &R : C)
        append(Out, R.Disp, R.Len);
      break;
    case MPI_COMBINER_CONTIGUOUS:
      block(Out, C, E, 0, I[0]);
      break;
    case MPI_COMBINER_VECTOR:
      for (int K = 0; K < I[0] && Err.ok(); ++K)
        block(Out, C, E, static_cast<int64_t>(K) * I[2] * E, I[1]);
      break;
    case MPI_COMBINER_HVECTOR:
      for (int K = 0; K < I[0] && Err.ok(); ++K)
        block(Out, C, E, static_cast<int64_t>(K) * A[0], I[1]);
      break;
    case MPI_COMBINER_INDEXED:
      for (int K = 0; K < I[0] && Err.ok(); ++K)
        block(Out, C, E, static_cast<int64_t>(I[1 + I[0] + K]) * E, I[1 + K]);
      break;
    case MPI_COMBINER_HINDEXED:
      for (int K = 0; K < I[0] && Err.ok(); ++K)
        block(Out, C, E, A[K], I[1 + K]);
      break;
    case MPI_COMBINER_INDEXED_BLOCK:
      for (int K = 0; K < I[0] && Err.ok(); ++K)
        block(Out, C, E, static_cast<int64_t>(I[2 + K]) * E, I[1]);
      break;
    case MPI_COMBINER_HINDEXED_BLOCK:
      for (int K = 0; K < I[0] && Err.ok(); ++K)
        block(Out, C, E, A[K], I[1]);
      break;
    case MPI_COMBINER_STRUCT:
      for (int K = 0; K < I[0] && Err.ok(); ++K)
        block(Out, Kids[static_cast<size_t>(K)], KidExt[static_cast<size_t>(K)], A[K], I[1 + K]);
      break;
    case MPI_COMBINER_SUBARRAY: {
      int N = I[0];
      const int *Sizes = &I[1], *Sub = &I[1 + N], *Start = &I[1 + 2 * N];
      bool COrder = I[1 + 3 * N] == MPI_ORDER_C;
      // Dimension order from slowest to fastest.
      std::vector<int> Dims(static_cast<size_t>(N));
      for (int K = 0; K < N; ++K)
        Dims[static_cast<size_t>(K)] = COrder ? K : N - 1 - K;
      std::vector<int64_t> Stride(static_cast<size_t>(N));
      int64_t S = 1;
      for (int K = N - 1; K >= 0; --K) {
        Stride[static_cast<size_t>(Dims[static_cast<size_t>(K)])] = S;
        S *= Sizes[Dims[static_cast<size_t>(K)]];
      }
      int Fast = Dims[static_cast<size_t>(N - 1)];
      std::vector<int> Idx(static_cast<size_t>(N), 0);
      bool Empty = false;
      for (int K = 0; K < N; ++K)
        Empty |= Sub[K] <= 0;
      while (!Empty && Err.ok()) {
        int64_t Elem = 0;
        for (int K = 0; K < N; ++K)
          Elem += (Start[K] + (K == Fast ? 0 : Idx[static_cast<size_t>(K)])) * Stride[static_cast<size_t>(K)];
        block(Out, C, E, Elem * E, Sub[Fast]);
        // Next row: odometer over the slower dimensions.
        int L = N - 2;
        for (; L >= 0; --L) {
          int Dm = Dims[static_cast<size_t>(L)];
          if (++Idx[static_cast<size_t>(Dm)] < Sub[Dm])
            break;
          Idx[static_cast<size_t>(Dm)] = 0;
        }
        if (L < 0)
          break;
      }
      break;
    }
    default:
      packFallback(T, Out);
      break;
    }
    // get_contents returns new handles for derived children: free them.
    for (int K = 0; K < ND; ++K) {
      int KI, KA, KD, KC;
      PMPI_Type_get_envelope(D[static_cast<size_t>(K)], &KI, &KA, &KD, &KC);
      if (KC != MPI_COMBINER_NAMED)
        PMPI_Type_free(&D[static_cast<size_t>(K)]);
    }
  }
};

} // namespace

uint64_t typeSize(MPI_Datatype T) {
  MPI_Count S = 0;
  PMPI_Type_size_x(T, &S);
  return S > 0 ? static_cast<uint64_t>(S) : 0;
}

bool contiguousInMemory(MPI_Datatype T, int Count, MPI_Aint &Lb) {
  MPI_Count TLb = 0, TExt = 0, ELb = 0, Ext = 0;
  PMPI_Type_get_true_extent_x(T, &TLb, &TExt);
  PMPI_Type_get_extent_x(T, &ELb, &Ext);
  MPI_Count Size = static_cast<MPI_Count>(typeSize(T));
  Lb = static_cast<MPI_Aint>(TLb);
  if (Count <= 1)
    return Size == TExt;
  return Size == TExt && Size == Ext;
}

Error flattenType(MPI_Datatype T, std::vector<TypeRun> &Out, size_t MaxRuns) {
  Flattener F{MaxRuns, Error()};
  Out.clear();
  F.flatten(T, Out);
  return F.Err;
}

} // namespace iopoly::prof
