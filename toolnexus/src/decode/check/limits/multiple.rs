//! `multipleOf`, read on the decimals numbers are written as.

use std::fmt::Write as _;

use serde_json::Number;

use super::integer;

/// Whether `number` divided by `multiple` is an integer, read as JSON Schema reads numbers:
/// as the decimals they are written as. A float is taken at the shortest decimal that reads
/// back as it (`0.1`, not the binary value nearest to it), so `1` and `0.3` are multiples of
/// `0.1`, and `19.99` of `0.01`, as the JSON Schema Test Suite has `0.0075` a multiple of
/// `0.0001`; dividing the binary floats would refuse all four.
pub(in crate::decode::check) fn is_multiple(number: &Number, multiple: &Number) -> bool {
    if let (Some(number), Some(multiple)) = (integer(number), integer(multiple)) {
        return multiple != 0 && number % multiple == 0;
    }
    let (Some((n, n_exponent)), Some((m, m_exponent))) = (decimal(number), decimal(multiple))
    else {
        return true;
    };
    if n == 0 {
        return true;
    }
    if m == 0 {
        return false;
    }
    if n_exponent >= m_exponent {
        // `m` divides `n × 10^k` when its part prime to 10 divides `n`, and `n × 10^k` holds
        // as many 2s and 5s as `m` does.
        let k = n_exponent.abs_diff(m_exponent);
        let (twos, fives, rest) = factors_of_ten(m);
        let (n_twos, n_fives, _) = factors_of_ten(n);
        n % rest == 0 && twos <= n_twos + k && fives <= n_fives + k
    } else {
        let k = m_exponent.abs_diff(n_exponent);
        10_u128
            .checked_pow(k)
            .and_then(|power| power.checked_mul(m))
            .is_some_and(|divisor| n % divisor == 0)
    }
}

/// The magnitude of `number` as `digits × 10^exponent`, from its shortest decimal form;
/// `None` for a float that is not finite.
fn decimal(number: &Number) -> Option<(u128, i32)> {
    if let Some(integer) = integer(number) {
        return Some((integer.unsigned_abs(), 0));
    }
    let float = number.as_f64()?;
    if !float.is_finite() {
        return None;
    }
    // `{:e}` writes the shortest digits that read back as the float (`1.999e1`), in at most
    // 24 characters: on the stack, as this runs on every call checked.
    let mut written = Written {
        bytes: [0; 32],
        len: 0,
    };
    write!(written, "{:e}", float.abs()).ok()?;
    let text = std::str::from_utf8(&written.bytes[..written.len]).ok()?;
    let (mantissa, exponent) = text.split_once('e')?;
    let (mut digits, mut fraction) = (0_u128, None::<i32>);
    for byte in mantissa.bytes() {
        match byte {
            b'.' => fraction = Some(0),
            b'0'..=b'9' => {
                digits = digits * 10 + u128::from(byte - b'0');
                fraction = fraction.map(|places| places + 1);
            }
            _ => return None,
        }
    }
    let exponent: i32 = exponent.parse().ok()?;
    Some((digits, exponent - fraction.unwrap_or(0)))
}

/// Text written into a fixed buffer, which a longer text does not fit.
struct Written {
    bytes: [u8; 32],
    len: usize,
}

impl std::fmt::Write for Written {
    fn write_str(&mut self, text: &str) -> std::fmt::Result {
        let end = self.len + text.len();
        let slot = self.bytes.get_mut(self.len..end).ok_or(std::fmt::Error)?;
        slot.copy_from_slice(text.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// `value` as `2^twos × 5^fives × rest`.
fn factors_of_ten(mut value: u128) -> (u32, u32, u128) {
    let twos = value.trailing_zeros();
    value >>= twos;
    let mut fives = 0;
    while value % 5 == 0 {
        value /= 5;
        fives += 1;
    }
    (twos, fives, value)
}
