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
