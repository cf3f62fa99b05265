//! `multipleOf`, read on the decimals numbers are written as.

use serde_json::Number;

use super::integer;

/// A `multipleOf`, read once with its schema: as written, for messages, and as the decimal
/// it is written as.
#[derive(Debug)]
pub(in crate::decode::check) struct Step {
    pub(super) written: Number,
    integer: Option<i128>,
    decimal: Option<(u64, i32)>,
}

impl Step {
    /// The step `written`; `None` unless it is greater than zero (else it says nothing).
    pub(in crate::decode::check) fn of(written: Number) -> Option<Self> {
        written.as_f64().filter(|step| *step > 0.0)?;
        Some(Self {
            integer: integer(&written),
            decimal: decimal(&written),
            written,
        })
    }

    /// Whether `number` divided by this step is an integer, read as JSON Schema reads
    /// numbers: as the decimals they are written as. A float is taken at the shortest decimal
    /// that reads back as it (`0.1`, not the binary value nearest to it), so `1` and `0.3`
    /// are multiples of `0.1`, and `19.99` of `0.01`, as the JSON Schema Test Suite has
    /// `0.0075` a multiple of `0.0001`; dividing the binary floats would refuse all four.
    pub(in crate::decode::check) fn admits(&self, number: &Number) -> bool {
        if let (Some(number), Some(step)) = (integer(number), self.integer) {
            return number % step == 0;
        }
        let (Some((n, n_exponent)), Some((m, m_exponent))) = (decimal(number), self.decimal) else {
            return true;
        };
        if n == 0 {
            return true;
        }
        if n_exponent >= m_exponent {
            // `m` divides `n × 10^k` when its part prime to 10 divides `n`, and `n × 10^k`
            // holds as many 2s and 5s as `m` does.
            let k = n_exponent.abs_diff(m_exponent);
            let (twos, fives, rest) = factors_of_ten(m);
            let (n_twos, n_fives, _) = factors_of_ten(n);
            n % rest == 0 && twos <= n_twos + k && fives <= n_fives + k
        } else {
            let k = m_exponent.abs_diff(n_exponent);
            10_u64
                .checked_pow(k)
                .and_then(|power| power.checked_mul(m))
                .is_some_and(|divisor| n % divisor == 0)
        }
    }
}

/// The magnitude of `number` as `digits × 10^exponent`, from its shortest decimal form;
/// `None` for a float that is not finite.
fn decimal(number: &Number) -> Option<(u64, i32)> {
    if let Some(integer) = integer(number) {
        return Some((u64::try_from(integer.unsigned_abs()).ok()?, 0));
    }
    let float = number.as_f64()?;
    if !float.is_finite() {
        return None;
    }
    // The shortest digits that read back as the float, as serde_json writes them: `19.99`,
    // `1e+300`, `1.5e-7`.
    let mut buffer = zmij::Buffer::new();
    let mut written = buffer.format_finite(float.abs()).bytes();
    // At most 17 digits, which a `u64` holds, then the exponent if any.
    let (mut digits, mut places, mut fraction) = (0_u64, 0_i32, false);
    for byte in written.by_ref() {
        match byte {
            b'0'..=b'9' => {
                digits = digits * 10 + u64::from(byte - b'0');
                places += i32::from(fraction);
            }
            b'.' => fraction = true,
            b'e' => break,
            _ => return None,
        }
    }
    let (mut exponent, mut sign) = (0_i32, 1);
    for byte in written {
        match byte {
            b'0'..=b'9' => exponent = exponent * 10 + i32::from(byte - b'0'),
            b'-' => sign = -1,
            b'+' => {}
            _ => return None,
        }
    }
    Some((digits, sign * exponent - places))
}

/// `value` as `2^twos × 5^fives × rest`.
fn factors_of_ten(mut value: u64) -> (u32, u32, u64) {
    let twos = value.trailing_zeros();
    value >>= twos;
    let mut fives = 0;
    while value % 5 == 0 {
        value /= 5;
        fives += 1;
    }
    (twos, fives, value)
}
