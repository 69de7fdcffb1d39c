//! A configuration's values narrowed to `i32` in the memory that holds
//! them as `i64`: the first `len` 32-bit slots of the same buffer. Batches
//! of synchronous steps on narrowed values then need no second copy of the
//! configuration (or of the one before the step), only this pass at each
//! end.

/// Narrows `values` in place, where every one fits `i32`: afterwards
/// [`as_narrowed`] reads them. Where some value does not fit, nothing
/// changes and the answer is `false`.
pub(super) fn narrow_in_place(values: &mut [i64]) -> bool {
    // One pass with no early exit, so that it vectorizes.
    let fits = values
        .iter()
        .fold(true, |fits, &v| fits & (i64::from(v as i32) == v));
    if !fits {
        return false;
    }
    let len = values.len();
    let slots: &mut [i32] = bytemuck::cast_slice_mut(values);
    // Slot k is written after value k is read, and holds a part of value
    // k / 2 or below, read already.
    for k in 0..len {
        let v: i64 = bytemuck::cast([slots[2 * k], slots[2 * k + 1]]);
        slots[k] = v as i32;
    }
    true
}

/// The values [`narrow_in_place`] narrowed, to read and write as `i32`.
pub(super) fn as_narrowed(values: &mut [i64]) -> &mut [i32] {
    let len = values.len();
    &mut bytemuck::cast_slice_mut(values)[..len]
}

/// Undoes [`narrow_in_place`]: the values are `i64` again.
pub(super) fn widen_in_place(values: &mut [i64]) {
    let len = values.len();
    let slots: &mut [i32] = bytemuck::cast_slice_mut(values);
    // From the last: value k's parts go to slots 2k and 2k + 1, whose
    // narrowed values (k and above) are read already.
    for k in (0..len).rev() {
        let parts: [i32; 2] = bytemuck::cast(i64::from(slots[k]));
        slots[2 * k] = parts[0];
        slots[2 * k + 1] = parts[1];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Narrowing and widening keep every value, whatever the length, and
    /// the narrowed slots hold the values in order; a value that does not
    /// fit leaves the buffer as it was.
    #[test]
    fn narrowing_in_place_keeps_every_value() {
        for len in 0..70 {
            let values: Vec<i64> = (0..len as i64)
                .map(|k| (k * 7919 - 100_000) * if k % 3 == 0 { -1 } else { 1 })
                .chain([i64::from(i32::MIN), i64::from(i32::MAX)])
                .collect();
            let mut buf = values.clone();
            assert!(narrow_in_place(&mut buf));
            let seen: Vec<i64> = as_narrowed(&mut buf)
                .iter()
                .map(|&v| i64::from(v))
                .collect();
            assert_eq!(seen, values);
            as_narrowed(&mut buf)[0] += 1;
            widen_in_place(&mut buf);
            let mut changed = values.clone();
            changed[0] += 1;
            assert_eq!(buf, changed);
        }
        let mut too_wide = vec![1, 2, i64::from(i32::MAX) + 1, 4];
        assert!(!narrow_in_place(&mut too_wide));
        assert_eq!(too_wide, [1, 2, i64::from(i32::MAX) + 1, 4]);
    }
}
