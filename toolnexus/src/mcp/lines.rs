//! The one stdio line reader: one JSON-RPC message a line, at most [`MAX_LINE_BYTES`] long,
//! for the server's `LineTransport` and the client's child processes.
//!
//! The framing is tokio-util's `AnyDelimiterCodec` with a maximum length. Its `LinesCodec`
//! would not keep the behaviour: it hands out `String`s, so a line that is not UTF-8 would
//! come out as an error without its bytes, where the client quotes them and the server reads
//! the `id` of its own error message from them. Both codecs say a line is too long as soon as
//! it passes the maximum and then discard it to the next `\n` (never holding it whole): the
//! server answers it and reads on, the client stops at once. The codec is driven here rather
//! than through `FramedRead`, whose stream ends at its first error, where the server must read
//! on past a line too long.

use std::io;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::bytes::{Bytes, BytesMut};
use tokio_util::codec::{AnyDelimiterCodec, AnyDelimiterCodecError, Decoder};

use crate::decode::MAX_ARGUMENT_BYTES;

/// The longest line read on stdio, by the server and the client alike: the argument cap plus
/// room for the message around the arguments. A longer line is never held whole: the server
/// skips it and answers it with an error, the client ends the connection.
pub const MAX_LINE_BYTES: usize = MAX_ARGUMENT_BYTES + 64 * 1024;

/// How much is asked of the reader at a time (as tokio-util's `FramedRead` asks).
const READ_SIZE: usize = 8 * 1024;

/// What [`LineReader::next`] read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A line without its `\n` (the last one may lack it).
    Read(Bytes),
    /// A line past [`MAX_LINE_BYTES`], said as soon as it passes; the next read skips its rest.
    TooLong,
    /// The end of the stream.
    End,
}

/// Lines from `R`. The line being read is kept here, so a `next` dropped mid-line (rmcp
/// selects over `receive`) loses nothing.
pub(crate) struct LineReader<R> {
    reader: R,
    buffer: BytesMut,
    codec: AnyDelimiterCodec,
    ended: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub(crate) fn new(reader: R) -> Self {
        Self::with_max(reader, MAX_LINE_BYTES)
    }

    fn with_max(reader: R, max: usize) -> Self {
        Self {
            reader,
            buffer: BytesMut::new(),
            codec: AnyDelimiterCodec::new_with_max_length(b"\n".to_vec(), Vec::new(), max),
            ended: false,
        }
    }

    /// The next line. Cancel-safe: `read_buf` reads nothing when dropped, and the codec keeps
    /// where it was in the buffer.
    pub(crate) async fn next(&mut self) -> io::Result<Line> {
        loop {
            let decoded = match self.ended {
                true => self.codec.decode_eof(&mut self.buffer),
                false => self.codec.decode(&mut self.buffer),
            };
            match decoded {
                Ok(Some(line)) => return Ok(Line::Read(line)),
                Ok(None) if self.ended => return Ok(Line::End),
                Ok(None) => {}
                Err(AnyDelimiterCodecError::MaxChunkLengthExceeded) => return Ok(Line::TooLong),
                Err(AnyDelimiterCodecError::Io(error)) => return Err(error),
            }
            self.buffer.reserve(READ_SIZE);
            if self.reader.read_buf(&mut self.buffer).await? == 0 {
                self.ended = true;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::mcp::lines::*;

    async fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut reader = LineReader::with_max(input, max);
        let mut read = Vec::new();
        loop {
            let line = reader.next().await.unwrap();
            let end = line == Line::End;
            read.push(line);
            if end {
                return read;
            }
        }
    }

    fn read(line: &str) -> Line {
        Line::Read(Bytes::copy_from_slice(line.as_bytes()))
    }

    #[tokio::test]
    async fn a_line_past_the_maximum_is_said_once_and_skipped_to_its_end() {
        assert_eq!(
            lines(b"abcd\nabcde\nab\n\xff\n\nlast", 4).await,
            [
                read("abcd"),
                Line::TooLong,
                read("ab"),
                Line::Read(Bytes::from_static(b"\xff")),
                read(""),
                read("last"),
                Line::End,
            ]
        );
        assert_eq!(
            lines(b"ok\nabcdefgh", 4).await,
            [read("ok"), Line::TooLong, Line::End]
        );
        assert_eq!(lines(b"", 4).await, [Line::End]);
    }

    #[tokio::test]
    async fn a_line_too_long_is_said_before_its_end_arrives() {
        // The client stops at once on a server that writes without end; the server answers.
        let (mut writer, reader) = tokio::io::duplex(64);
        let mut reader = LineReader::with_max(reader, 16);
        tokio::io::AsyncWriteExt::write_all(&mut writer, &[b'x'; 40])
            .await
            .unwrap();
        assert_eq!(reader.next().await.unwrap(), Line::TooLong);
    }

    #[tokio::test]
    async fn a_read_dropped_mid_line_loses_nothing() {
        let (mut writer, reader) = tokio::io::duplex(64);
        let mut reader = LineReader::new(reader);
        tokio::io::AsyncWriteExt::write_all(&mut writer, b"{\"a\":")
            .await
            .unwrap();
        let waited = tokio::time::timeout(std::time::Duration::from_millis(20), reader.next());
        assert!(waited.await.is_err(), "no line yet");
        tokio::io::AsyncWriteExt::write_all(&mut writer, b"1}\n")
            .await
            .unwrap();
        assert_eq!(reader.next().await.unwrap(), read("{\"a\":1}"));
    }
}
