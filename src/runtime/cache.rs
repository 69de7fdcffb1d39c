//! A cache prefetch hint, for searches whose next reads are known before
//! they are made: the simulator's central fast path and the verifier's
//! rounds search.

/// Starts loading the cache line holding `x`: a hint, with no effect on
/// what the program computes.
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the pointer comes from a reference, so it is valid; and a
    // prefetch does not access memory as far as the program can tell (it
    // cannot fault, and changes no value). The intrinsic is `unsafe` only
    // because of its `target_feature`, SSE, which every x86-64 has.
    #[allow(unsafe_code)]
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
