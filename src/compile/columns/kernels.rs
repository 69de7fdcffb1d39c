//! The kernels: tight loops over a chunk of processes, one per operation,
//! built for several instruction sets; the column copies, which go
//! through a small buffer on the stack when stores would alias loads; and
//! the two ways values are kept ([`ColumnValue`]).

use super::*;

/// Elements a column is moved in at a time by [`write_blocks`] when it
/// goes through the stack.
const BOUNCE: usize = 128;

/// How kernels keep a configuration's values: as they are (`i64`), or
/// narrowed to `i32` where every variable's domain fits (see
/// [`ColumnCode::narrows`]), which halves the bytes a step over a large
/// ring moves through memory, what bounds it there. Registers are `i64`
/// either way: values are widened as they are read and narrowed as they
/// are written.
pub trait ColumnValue: Copy + Default + 'static {
    /// `values` as they are, where they are `i64` already.
    fn as_wide(values: &[Self]) -> Option<&[i64]>;
    /// One value, widened.
    fn widen(self) -> i64;
    /// `v`, which fits: it lies in its variable's domain.
    fn narrow(v: i64) -> Self;
    /// `dst[i] = src[i]` widened (of the same length).
    fn widen_into(dst: &mut [i64], src: &[Self]);
    /// `dst[i] = src[i]` narrowed (of the same length).
    fn narrow_from(dst: &mut [Self], src: &[i64]);
    /// `dst[i] = src[i]` narrowed where `chosen[i] == a`.
    fn write_where(dst: &mut [Self], src: &[i64], chosen: &[u16], a: u16);
    /// `dst[i] = src[i]` where `chosen[i] == a`, `src` a column of the
    /// configuration (see [`write_blocks`]).
    fn copy_where(dst: &mut [Self], src: &[Self], chosen: &[u16], a: u16);
    /// [`choose_where`] on values kept so.
    fn choose_where(cmp: Cmp, first: bool, a: u16, x: &[Self], y: &[Self], out: &mut [u16]);
}

impl ColumnValue for i64 {
    fn as_wide(values: &[i64]) -> Option<&[i64]> {
        Some(values)
    }
    fn widen(self) -> i64 {
        self
    }
    fn narrow(v: i64) -> i64 {
        v
    }
    fn widen_into(dst: &mut [i64], src: &[i64]) {
        dst.copy_from_slice(src);
    }
    fn narrow_from(dst: &mut [i64], src: &[i64]) {
        copy_column(dst, src);
    }
    fn write_where(dst: &mut [i64], src: &[i64], chosen: &[u16], a: u16) {
        write_where(dst, src, chosen, a);
    }
    fn copy_where(dst: &mut [i64], src: &[i64], chosen: &[u16], a: u16) {
        write_where(dst, src, chosen, a);
    }
    fn choose_where(cmp: Cmp, first: bool, a: u16, x: &[i64], y: &[i64], out: &mut [u16]) {
        choose_where(cmp, first, a, x, y, out);
    }
}

impl ColumnValue for i32 {
    fn as_wide(_: &[i32]) -> Option<&[i64]> {
        None
    }
    fn widen(self) -> i64 {
        i64::from(self)
    }
    fn narrow(v: i64) -> i32 {
        v as i32
    }
    fn widen_into(dst: &mut [i64], src: &[i32]) {
        widen_i32(dst, src);
    }
    fn narrow_from(dst: &mut [i32], src: &[i64]) {
        narrow_i32(dst, src);
    }
    fn write_where(dst: &mut [i32], src: &[i64], chosen: &[u16], a: u16) {
        write_where_i32(dst, src, chosen, a);
    }
    fn copy_where(dst: &mut [i32], src: &[i32], chosen: &[u16], a: u16) {
        copy_where_i32(dst, src, chosen, a);
    }
    fn choose_where(cmp: Cmp, first: bool, a: u16, x: &[i32], y: &[i32], out: &mut [u16]) {
        choose_where_i32(cmp, first, a, x, y, out);
    }
}

#[multiversion(targets = "simd")]
fn widen_i32(dst: &mut [i64], src: &[i32]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = i64::from(s);
    }
}

#[multiversion(targets = "simd")]
fn narrow_i32(dst: &mut [i32], src: &[i64]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = s as i32;
    }
}

/// As [`write_where`], narrowing; `src` is a register or a buffer, never
/// the configuration, so no store aliases a load.
#[multiversion(targets = "simd")]
fn write_where_i32(dst: &mut [i32], src: &[i64], chosen: &[u16], a: u16) {
    for ((cell, &c), &x) in dst.iter_mut().zip(chosen).zip(src) {
        let take = -i32::from(c == a);
        *cell = (*cell & !take) | (x as i32 & take);
    }
}

/// As [`write_where`], on narrowed values.
#[multiversion(targets = "simd")]
fn copy_where_i32(dst: &mut [i32], src: &[i32], chosen: &[u16], a: u16) {
    write_blocks(dst, src, |dst, src, at| {
        let chosen = &chosen[at..at + src.len()];
        for ((cell, &c), &x) in dst.iter_mut().zip(chosen).zip(src) {
            let take = -i32::from(c == a);
            *cell = (*cell & !take) | (x & take);
        }
    });
}

/// As [`choose_where`], on narrowed values.
#[multiversion(targets = "simd")]
fn choose_where_i32(cmp: Cmp, first: bool, a: u16, x: &[i32], y: &[i32], out: &mut [u16]) {
    ir::specialize_cmp!(cmp, OP => {
        let holds = |x: i32, y: i32| OP.holds(i64::from(x), i64::from(y));
        if first {
            for ((c, &x), &y) in out.iter_mut().zip(x).zip(y) {
                *c = if holds(x, y) { a } else { NO_ACTION };
            }
        } else {
            for ((c, &x), &y) in out.iter_mut().zip(x).zip(y) {
                *c = if *c == NO_ACTION && holds(x, y) { a } else { *c };
            }
        }
    })
}

/// The values of `src` for processes `lo..lo + len` as the rows keep
/// them, where they lie side by side (one value a process, and no wrap
/// around the ring).
pub(super) fn side<'a, T: ColumnValue>(
    stride: usize,
    src: Src,
    rows: &Rows<'a, T>,
    lo: usize,
    len: usize,
) -> Option<&'a [T]> {
    match src {
        _ if stride != 1 => None,
        Src::Own(_) => Some(&rows.own[..len]),
        Src::Left(_) if lo >= 1 => Some(&rows.state[lo - 1..lo - 1 + len]),
        Src::Right(_) if lo + len < rows.n => Some(&rows.state[lo + 1..lo + 1 + len]),
        _ => None,
    }
}

/// Copies `src` into `dst` (of the same length), see [`write_blocks`].
pub(super) fn copy_column<T: Copy + Default>(dst: &mut [T], src: &[T]) {
    write_blocks(dst, src, |dst, src, _| dst.copy_from_slice(src));
}

/// Sets `dst[i] = src[i]` where `chosen[i] == a` (all of the same length),
/// see [`write_blocks`]. A select by masks, built for several instruction
/// sets, so that it vectorizes (a conditional move per element did not).
#[multiversion(targets = "simd")]
pub(super) fn write_where(dst: &mut [i64], src: &[i64], chosen: &[u16], a: u16) {
    write_blocks(dst, src, |dst, src, at| {
        let chosen = &chosen[at..at + src.len()];
        for ((cell, &c), &x) in dst.iter_mut().zip(chosen).zip(src) {
            let take = -i64::from(c == a);
            *cell = (*cell & !take) | (x & take);
        }
    });
}

/// Whether streaming stores to `dst` while loading `src` ahead of them
/// would hit addresses equal in their low 12 bits to stores just made.
///
/// Why it matters: the configuration and the next one are large
/// allocations, often at the same offset within a page, so `dst[i]` and
/// `src[i - 1]` (a left neighbour's value) can differ by 8 bytes in their
/// low 12 address bits. The processor then takes loads to depend on the
/// stores before them and stalls: on this machine a direct copy ran at a
/// tenth of the speed of one through the stack.
fn stores_alias_loads<T>(dst: &[T], src: &[T]) -> bool {
    let ahead = (dst.as_ptr() as usize).wrapping_sub(src.as_ptr() as usize) % 4096;
    (1..1024).contains(&ahead)
}

/// Runs `write(dst_part, src_part, offset)` over `dst` and `src` (of the
/// same length): in one call on the slices themselves, or, when stores
/// to `dst` would alias loads from `src` (see [`stores_alias_loads`]),
/// block by block, each block of `src` first copied to the stack.
fn write_blocks<T: Copy + Default>(
    dst: &mut [T],
    src: &[T],
    mut write: impl FnMut(&mut [T], &[T], usize),
) {
    debug_assert_eq!(dst.len(), src.len());
    if !stores_alias_loads(dst, src) {
        write(dst, src, 0);
        return;
    }
    let mut buf = [T::default(); BOUNCE];
    for (k, (d, s)) in dst.chunks_mut(BOUNCE).zip(src.chunks(BOUNCE)).enumerate() {
        let b = &mut buf[..s.len()];
        b.copy_from_slice(s);
        write(d, b, k * BOUNCE);
    }
}

/// Sets `out[i]` to `a` where `x[i] cmp y[i]` and no earlier action was
/// chosen (`first`: none was before), else leaves it (`NO_ACTION` when
/// `first`).
#[multiversion(targets = "simd")]
pub(super) fn choose_where(cmp: Cmp, first: bool, a: u16, x: &[i64], y: &[i64], out: &mut [u16]) {
    ir::specialize_cmp!(cmp, OP => {
        if first {
            for ((c, &x), &y) in out.iter_mut().zip(x).zip(y) {
                *c = if OP.holds(x, y) { a } else { NO_ACTION };
            }
        } else {
            for ((c, &x), &y) in out.iter_mut().zip(x).zip(y) {
                *c = if *c == NO_ACTION && OP.holds(x, y) { a } else { *c };
            }
        }
    })
}

/// How many of `chosen` (at most [`CHUNK`]) equal `a`, counted in 16-bit
/// lanes so the loop vectorizes.
#[multiversion(targets = "simd")]
pub fn count_equal(chosen: &[u16], a: u16) -> usize {
    debug_assert!(chosen.len() <= CHUNK);
    usize::from(chosen.iter().fold(0u16, |n, &c| n + u16::from(c == a)))
}

/// The values of `src` for processes `lo..lo + len`: a slice of the rows
/// when they lie side by side, else gathered into `buf`.
pub(super) fn view<'a, T: ColumnValue>(
    stride: usize,
    src: Src,
    rows: &Rows<'a, T>,
    lo: usize,
    len: usize,
    regs: &'a [Vec<i64>],
    buf: &'a mut [i64],
) -> &'a [i64] {
    // Not the rows' length over the stride: a program without variables has
    // empty rows.
    let n = rows.n;
    if let Some(values) = side(stride, src, rows, lo, len) {
        // In place when they are `i64`, else widened.
        return match T::as_wide(values) {
            Some(values) => values,
            None => {
                let buf = &mut buf[..len];
                T::widen_into(buf, values);
                buf
            }
        };
    }
    match src {
        Src::Reg(r) => &regs[r][..len],
        Src::Id if !rows.ids.is_empty() => &rows.ids[lo..lo + len],
        _ => {
            let buf = &mut buf[..len];
            for (i, b) in buf.iter_mut().enumerate() {
                let p = lo + i;
                *b = match src {
                    Src::Own(slot) => rows.own[i * stride + slot].widen(),
                    Src::Left(slot) => {
                        rows.state[(if p == 0 { n - 1 } else { p - 1 }) * stride + slot].widen()
                    }
                    Src::Right(slot) => {
                        rows.state[(if p + 1 == n { 0 } else { p + 1 }) * stride + slot].widen()
                    }
                    // Ids that are the indices are kept as none.
                    Src::Index | Src::Id => p as i64,
                    Src::Reg(_) => unreachable!("read in place above"),
                };
            }
            buf
        }
    }
}

/// One operation's loop; whether it may have faulted.
#[multiversion(targets = "simd")]
pub(super) fn kernel(op: &Op, x: &[i64], y: Option<&[i64]>, out: &mut [i64]) -> bool {
    let y = y.unwrap_or(x);
    let mut bad = false;
    macro_rules! each {
        (|$a:ident, $b:ident| $e:expr) => {
            for ((o, &$a), &$b) in out.iter_mut().zip(x).zip(y) {
                *o = $e;
            }
        };
    }
    match *op {
        // Each operator's loop on its own, so each vectorizes.
        Op::Arith(Arith::Add, ..) => each!(|a, b| {
            let (v, o) = Arith::Add.apply_flagged(a, b);
            bad |= o;
            v
        }),
        Op::Arith(Arith::Sub, ..) => each!(|a, b| {
            let (v, o) = Arith::Sub.apply_flagged(a, b);
            bad |= o;
            v
        }),
        Op::Arith(Arith::Mul, ..) => each!(|a, b| {
            let (v, o) = Arith::Mul.apply_flagged(a, b);
            bad |= o;
            v
        }),
        Op::Arith(Arith::Min, ..) => each!(|a, b| Arith::Min.apply_flagged(a, b).0),
        Op::Arith(Arith::Max, ..) => each!(|a, b| Arith::Max.apply_flagged(a, b).0),
        Op::Arith(op, ..) => each!(|a, b| {
            let (v, o) = op.apply_flagged(a, b);
            bad |= o;
            v
        }),
        Op::Neg(..) => each!(|a, _b| {
            let r = ir::negate(a);
            bad |= r.is_none();
            r.unwrap_or(0)
        }),
        Op::Abs(..) => each!(|a, _b| {
            let r = ir::absolute(a);
            bad |= r.is_none();
            r.unwrap_or(0)
        }),
        Op::Cmp(c, ..) => ir::specialize_cmp!(c, OP => each!(|a, b| i64::from(OP.holds(a, b)))),
        Op::And(..) => each!(|a, b| a & b),
        Op::Or(..) => each!(|a, b| a | b),
        Op::Not(..) => each!(|a, _b| 1 - a),
        Op::BoolEq(eq, ..) => each!(|a, b| i64::from((a == b) == eq)),
        Op::Copy(..) => each!(|a, _b| a),
    }
    bad
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `dst` and `src` from one allocation, `dst` 513 elements after `src`:
    /// 8 bytes ahead in the low 12 address bits, the case copied through
    /// the stack; and 1000 elements after (3904 bytes ahead), the direct case.
    fn pair(gap: usize, len: usize) -> (Vec<i64>, std::ops::Range<usize>) {
        let buf: Vec<i64> = (0..(gap + len) as i64).map(|i| i * 3 + 1).collect();
        (buf, gap..gap + len)
    }

    #[test]
    fn copies_whether_or_not_stores_alias_loads() {
        for (gap, aliased) in [(513, true), (1000, false)] {
            for len in [0, 1, 127, 128, 129, 500, 513] {
                let (mut buf, to) = pair(gap, len);
                let expected: Vec<i64> = buf[..len].to_vec();
                let (src, dst) = buf.split_at_mut(gap);
                let (src, dst) = (&src[..len], &mut dst[..len]);
                if len > 0 {
                    assert_eq!(stores_alias_loads(dst, src), aliased, "gap {gap}");
                }
                copy_column(dst, src);
                assert_eq!(&buf[to], &expected[..], "gap {gap}, length {len}");
            }
        }
    }

    #[test]
    fn writes_only_where_chosen_whether_or_not_stores_alias_loads() {
        for gap in [513, 1000] {
            let len = 300;
            let (mut buf, to) = pair(gap, len);
            let chosen: Vec<u16> = (0..len).map(|i| (i % 3) as u16).collect();
            let expected: Vec<i64> = (0..len)
                .map(|i| if chosen[i] == 1 { buf[i] } else { buf[gap + i] })
                .collect();
            let (src, dst) = buf.split_at_mut(gap);
            write_where(&mut dst[..len], &src[..len], &chosen, 1);
            assert_eq!(&buf[to], &expected[..], "gap {gap}");
        }
    }
}
