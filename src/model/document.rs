//! The one reader of the TOML documents git-t3 stores in git (a note, an
//! op, a revert journal, a prompt): at most a given size, UTF-8, then TOML
//! of the expected shape, in that order, so that no reader parses more
//! than it accepts. Each caller checks its schema after.

use serde::de::DeserializeOwned;

/// Why a stored document was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DocumentError {
    /// Bigger than the reader accepts.
    TooLarge {
        /// Its size in bytes.
        len: usize,
    },
    /// Not UTF-8 text.
    NotUtf8,
    /// Not TOML of the expected shape (the parser's message).
    Toml(String),
}

/// Parse `data` as a TOML document of type `T`, refusing it when it is
/// over `max` bytes or not UTF-8.
pub fn read<T: DeserializeOwned>(data: &[u8], max: usize) -> Result<T, DocumentError> {
    if data.len() > max {
        return Err(DocumentError::TooLarge { len: data.len() });
    }
    let text = std::str::from_utf8(data).map_err(|_| DocumentError::NotUtf8)?;
    toml::from_str(text).map_err(|e| DocumentError::Toml(e.message().to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Doc {
        schema: u32,
    }

    #[test]
    fn size_then_encoding_then_shape() {
        assert_eq!(read::<Doc>(b"schema = 1\n", 64), Ok(Doc { schema: 1 }));
        assert_eq!(
            read::<Doc>(b"schema = 1\n", 4),
            Err(DocumentError::TooLarge { len: 11 })
        );
        assert_eq!(read::<Doc>(b"schema = \xff", 64), Err(DocumentError::NotUtf8));
        assert!(matches!(
            read::<Doc>(b"schema = 'x'", 64),
            Err(DocumentError::Toml(_))
        ));
        assert!(matches!(read::<Doc>(b"", 64), Err(DocumentError::Toml(_))));
    }
}
