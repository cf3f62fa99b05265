//! Edge constructors for content parts (SPEC §1B): a path, URL or `data:` URL becomes a part.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};

use crate::result::part::{ContentPart, ContentPartError, Source, base64_bytes};
use crate::result::url;

/// Options for [`attach_with`] and [`from_path`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AttachOptions {
    /// The media type to use instead of inferring it from the extension.
    pub mime_type: Option<String>,
    /// The name of a file part (default: the path's or URL's basename). Ignored for images
    /// and audio, which carry no name.
    pub name: Option<String>,
    /// Refuse parts larger than this many (decoded) bytes. A file is measured before it is
    /// read, so a huge file is refused without being loaded.
    pub max_part_bytes: Option<usize>,
}

/// Makes a part from a `data:` URL, an `http(s)://` URL or a filesystem path (read now).
///
/// ```
/// use toolnexus::parts::{attach, describe_part};
///
/// let part = attach("data:text/plain,hello%20world").unwrap();
/// assert_eq!(describe_part(&part), "file (text/plain, 11 bytes)");
///
/// let remote = attach("https://example.com/chart.png").unwrap();
/// assert_eq!(describe_part(&remote), "image (image/png, 0 bytes)");
/// ```
pub fn attach(source: impl AsRef<str>) -> Result<ContentPart, ContentPartError> {
    attach_with(source, AttachOptions::default())
}

/// [`attach`] with options: an explicit mime type, a file name, a size limit.
pub fn attach_with(
    source: impl AsRef<str>,
    opts: AttachOptions,
) -> Result<ContentPart, ContentPartError> {
    let source = source.as_ref();
    if let Some(rest) = strip_prefix_ignore_case(source, "data:") {
        from_data_url(rest, opts)
    } else if strip_prefix_ignore_case(source, "http://").is_some()
        || strip_prefix_ignore_case(source, "https://").is_some()
    {
        from_url(source, opts)
    } else {
        from_path(source, opts)
    }
}

/// Makes a part from bytes in memory, base64-encoding them now; the part type follows the
/// mime (`image/*` ⇒ image, `audio/*` ⇒ audio, else file).
pub fn from_bytes(bytes: &[u8], mime_type: &str) -> ContentPart {
    ContentPart::for_mime(mime_type, Source::Data(STANDARD.encode(bytes)), None)
}

/// Reads a file now and makes a part of it. The size limit is checked against the file's
/// metadata before anything is read.
pub fn from_path(
    path: impl AsRef<Path>,
    opts: AttachOptions,
) -> Result<ContentPart, ContentPartError> {
    let path = path.as_ref();
    let mime_type = match opts.mime_type {
        Some(mime) => mime,
        None => mime_for(&path.to_string_lossy())?,
    };
    let io = |error| ContentPartError::Io {
        path: path.to_path_buf(),
        error,
    };
    let mut file = File::open(path).map_err(io)?;
    let metadata = file.metadata().map_err(io)?;
    // A device or pipe reports no meaningful size and may never end (`/dev/zero`).
    if !metadata.is_file() {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        )));
    }
    let size = metadata.len();
    check_size(size, opts.max_part_bytes)?;
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.read_to_end(&mut bytes).map_err(io)?;
    // The file may have grown between the check and the read.
    check_size(bytes.len() as u64, opts.max_part_bytes)?;
    let name = opts.name.or_else(|| {
        path.file_name()
            .map(|name| name.to_string_lossy().into_owned())
    });
    Ok(ContentPart::for_mime(
        &mime_type,
        Source::Data(STANDARD.encode(&bytes)),
        name,
    ))
}

fn from_url(url: &str, opts: AttachOptions) -> Result<ContentPart, ContentPartError> {
    let mime_type = match opts.mime_type {
        Some(mime) => mime,
        None => mime_for(url::path(url)).map_err(|_| ContentPartError::UnknownExtension {
            source: url.to_owned(),
        })?,
    };
    let name = opts
        .name
        .or_else(|| url::last_segment(url).map(str::to_owned));
    Ok(ContentPart::for_mime(
        &mime_type,
        Source::Url(url.to_owned()),
        name,
    ))
}

fn from_data_url(rest: &str, opts: AttachOptions) -> Result<ContentPart, ContentPartError> {
    let invalid = |reason: &str| ContentPartError::InvalidDataUrl {
        reason: reason.to_owned(),
    };
    let (header, payload) = rest
        .split_once(',')
        .ok_or_else(|| invalid("no `,` separates the media type from the payload"))?;
    let mut params = header.split(';');
    let declared = params.next().unwrap_or_default().trim();
    let is_base64 = params.any(|p| p.trim().eq_ignore_ascii_case("base64"));
    let data = if is_base64 {
        let compact: String = payload
            .chars()
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        // Accept unpadded payloads, but always store standard padded base64.
        let bytes = STANDARD
            .decode(&compact)
            .or_else(|_| STANDARD_NO_PAD.decode(&compact))
            .map_err(|_| invalid("the payload is marked `;base64` but is not valid base64"))?;
        if compact.len() % 4 == 0 {
            compact
        } else {
            STANDARD.encode(bytes)
        }
    } else {
        STANDARD.encode(url::percent_decode(payload).ok_or_else(|| {
            invalid("the payload has a `%` that is not followed by two hex digits")
        })?)
    };
    check_size(base64_bytes(&data) as u64, opts.max_part_bytes)?;
    let mime_type = match opts.mime_type {
        Some(mime) => mime,
        None if declared.is_empty() => "application/octet-stream".to_owned(),
        None => declared.to_owned(),
    };
    Ok(ContentPart::for_mime(
        &mime_type,
        Source::Data(data),
        opts.name,
    ))
}

fn check_size(size: u64, limit: Option<usize>) -> Result<(), ContentPartError> {
    match limit {
        Some(limit) if size > limit as u64 => Err(ContentPartError::TooLarge { size, limit }),
        _ => Ok(()),
    }
}

/// The mime for a path or URL: the fixed cross-port table first, then `mime_guess`.
fn mime_for(path: &str) -> Result<String, ContentPartError> {
    let unknown = || ContentPartError::UnknownExtension {
        source: path.to_owned(),
    };
    let file_name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let (_, extension) = file_name.rsplit_once('.').ok_or_else(unknown)?;
    let fixed = match extension.to_ascii_lowercase().as_str() {
        "png" => Some("image/png"),
        "jpg" | "jpeg" => Some("image/jpeg"),
        "gif" => Some("image/gif"),
        "webp" => Some("image/webp"),
        "pdf" => Some("application/pdf"),
        "mp3" => Some("audio/mpeg"),
        "wav" => Some("audio/wav"),
        _ => None,
    };
    match fixed {
        Some(mime) => Ok(mime.to_owned()),
        None => mime_guess::from_ext(extension)
            .first_raw()
            .map(str::to_owned)
            .ok_or_else(unknown),
    }
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &text[prefix.len()..])
}
