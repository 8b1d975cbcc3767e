//! LEB128 numbers: seven bits per byte, low bits first, the top bit set on every byte but the
//! last. The posting lists of the code index and of the Pin's digest are written with them. A
//! leaf: it imports nothing. Does not own what the numbers mean.

/// Bytes `v` takes.
pub(crate) fn len(v: u32) -> usize {
    (32 - (v | 1).leading_zeros()).div_ceil(7) as usize
}

/// Write `v` at the start of `out` (at least [`len`] bytes long); how many bytes it took.
pub(crate) fn write(out: &mut [u8], mut v: u32) -> usize {
    let mut n = 0;
    while v >= 0x80 {
        out[n] = (v & 0x7f) as u8 | 0x80;
        v >>= 7;
        n += 1;
    }
    out[n] = v as u8;
    n + 1
}

/// Append `v` to `out`.
pub(crate) fn push(out: &mut Vec<u8>, v: u32) {
    let mut buf = [0u8; 5];
    let n = write(&mut buf, v);
    out.extend_from_slice(&buf[..n]);
}

/// The number at `b[at..]` and where it ends; `None` when it is cut short or does not fit 32 bits.
pub(crate) fn read(b: &[u8], mut at: usize) -> Option<(u32, usize)> {
    let mut v = 0u32;
    for shift in (0..35).step_by(7) {
        let byte = *b.get(at)?;
        at += 1;
        let bits = u32::from(byte & 0x7f);
        if bits.leading_zeros() < shift {
            return None;
        }
        v |= bits << shift;
        if byte & 0x80 == 0 {
            return Some((v, at));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_back_as_written_and_take_len_bytes() {
        for v in [0, 1, 127, 128, 300, 16_383, 16_384, u32::MAX >> 1, u32::MAX] {
            let mut out = vec![9];
            push(&mut out, v);
            assert_eq!(out.len(), 1 + len(v), "{v}");
            assert_eq!(read(&out, 1), Some((v, out.len())), "{v}");
        }
        assert_eq!(len(127), 1);
        assert_eq!(len(128), 2);
    }

    #[test]
    fn cut_short_or_too_long_is_none() {
        assert_eq!(read(&[0x80], 0), None);
        assert_eq!(read(&[], 0), None);
        assert_eq!(read(&[0xff, 0xff, 0xff, 0xff, 0x7f], 0), None);
        assert_eq!(read(&[0xff; 6], 0), None);
    }
}
