//! JSON lexing for the text walk of `params.rs`: the keys, colons and commas around the
//! values serde_json reads.

/// The position of the first byte at or after `at` that is not JSON whitespace.
#[inline(always)]
pub(crate) fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    // Most argument text has none.
    if bytes.get(at).is_some_and(|byte| *byte > b' ') {
        return at;
    }
    while let Some(b' ' | b'\n' | b'\r' | b'\t') = bytes.get(at) {
        at += 1;
    }
    at
}

/// Argument text, read from `at`.
pub(crate) struct Cursor<'t> {
    text: &'t str,
    pub(crate) at: usize,
}

impl<'t> Cursor<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Self { text, at: 0 }
    }

    /// The text from the cursor on.
    pub(crate) fn rest(&self) -> &'t str {
        &self.text[self.at..]
    }

    /// Whether the cursor is past the last byte.
    pub(crate) fn at_end(&self) -> bool {
        self.at == self.text.len()
    }

    pub(crate) fn skip_whitespace(&mut self) {
        self.at = skip_whitespace(self.text.as_bytes(), self.at);
    }

    /// The next byte after whitespace, not consumed.
    pub(crate) fn peek(&mut self) -> Option<u8> {
        self.skip_whitespace();
        self.text.as_bytes().get(self.at).copied()
    }

    /// The next byte after whitespace, consumed.
    pub(crate) fn next(&mut self) -> Option<u8> {
        let byte = self.peek()?;
        self.at += 1;
        Some(byte)
    }

    pub(crate) fn expect(&mut self, byte: u8) -> Result<(), ()> {
        (self.next() == Some(byte)).then_some(()).ok_or(())
    }

    /// The string after whitespace, consumed: its bytes, quotes included, and whether it has
    /// escapes, read byte by byte: what it reads is an object's keys, which are short. A raw
    /// control character, invalid in a JSON string, fails.
    pub(crate) fn string(&mut self) -> Result<(&'t [u8], bool), ()> {
        self.expect(b'"')?;
        let bytes = self.text.as_bytes();
        let start = self.at - 1;
        let mut escaped = false;
        loop {
            match *bytes.get(self.at).ok_or(())? {
                b'"' => break,
                b'\\' => {
                    escaped = true;
                    self.at += 2;
                }
                0..0x20 => return Err(()),
                _ => self.at += 1,
            }
        }
        self.at += 1;
        Ok((&bytes[start..self.at], escaped))
    }
}

/// A JSON integer as serde_json hands it to a visitor: `visit_u64` when it is not negative,
/// `visit_i64` when it is.
#[derive(Clone, Copy)]
pub(crate) enum Integer {
    Unsigned(u64),
    Negative(i64),
}

/// The integer at the start of `bytes` and how many bytes it takes, when serde_json would read
/// it as one of 64 bits; `None` for anything else, which serde_json then reads: a fraction or
/// an exponent, digits past 64 bits (a float to serde_json), `-0` (the float `-0.0`), a
/// leading zero (refused), or no number at all.
#[inline]
pub(crate) fn integer(bytes: &[u8]) -> Option<(Integer, usize)> {
    let negative = bytes.first() == Some(&b'-');
    let start = usize::from(negative);
    let mut at = start;
    let mut magnitude = 0_u64;
    while let Some(digit @ b'0'..=b'9') = bytes.get(at) {
        magnitude = magnitude
            .checked_mul(10)?
            .checked_add(u64::from(digit - b'0'))?;
        at += 1;
    }
    let digits = at - start;
    if digits == 0
        || (digits > 1 && bytes[start] == b'0')
        || matches!(bytes.get(at), Some(b'.' | b'e' | b'E'))
    {
        return None;
    }
    let integer = match (negative, magnitude) {
        (false, _) => Integer::Unsigned(magnitude),
        (true, 0) => return None,
        // `i64::MIN`'s magnitude is one past `i64::MAX`.
        (true, _) => Integer::Negative(0_i64.checked_sub_unsigned(magnitude)?),
    };
    Some((integer, at))
}
