//! An object id in a document git-t3 writes and reads back itself (the
//! operation log's `op.toml`, a revert's journal, what a revert or a
//! restore reports): [`Oid`], a [`gix::ObjectId`] that is written as its
//! 40 hex digits and read only from an id of that length, so a document
//! holding anything else does not parse.
//!
//! It accepts what [`gix::ObjectId::from_hex`] accepts (hex digits of
//! either case) and always writes lowercase, as git does. Notes, which come
//! from other people's repositories and whose bad ids are tolerated, keep
//! their ids as text.

use std::fmt;

use gix::ObjectId;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A full object id, serialized as its lowercase hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Oid(ObjectId);

impl Oid {
    /// Parse the full hex id `s` (`None` when it is not one).
    pub fn from_hex(s: &str) -> Option<Self> {
        ObjectId::from_hex(s.as_bytes()).ok().map(Oid)
    }

    /// The id.
    pub fn get(self) -> ObjectId {
        self.0
    }
}

impl From<ObjectId> for Oid {
    fn from(id: ObjectId) -> Self {
        Oid(id)
    }
}

impl From<Oid> for ObjectId {
    fn from(id: Oid) -> Self {
        id.0
    }
}

impl std::ops::Deref for Oid {
    type Target = ObjectId;

    fn deref(&self) -> &ObjectId {
        &self.0
    }
}

impl PartialEq<ObjectId> for Oid {
    fn eq(&self, other: &ObjectId) -> bool {
        self.0 == *other
    }
}

impl fmt::Display for Oid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl Serialize for Oid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Oid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Oid::from_hex(&s).ok_or_else(|| serde::de::Error::custom(format!("'{s}' is not an object id")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEX: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Typed {
        one: Oid,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        maybe: Option<Oid>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        many: Vec<Oid>,
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Text {
        one: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        maybe: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        many: Vec<String>,
    }

    fn both(maybe: Option<&str>, many: &[&str]) -> (Typed, Text) {
        let id = |s: &str| Oid::from_hex(s).unwrap();
        let typed = Typed {
            one: id(HEX),
            maybe: maybe.map(id),
            many: many.iter().copied().map(id).collect(),
        };
        let text = Text {
            one: HEX.into(),
            maybe: maybe.map(str::to_owned),
            many: many.iter().copied().map(str::to_owned).collect(),
        };
        (typed, text)
    }

    #[test]
    fn writes_the_bytes_the_text_form_wrote() {
        let other = "0123456789abcdef0123456789abcdef01234567";
        for (maybe, many) in [(None, &[][..]), (Some(other), &[HEX, other][..])] {
            let (typed, text) = both(maybe, many);
            let toml_text = toml::to_string(&text).unwrap();
            assert_eq!(toml::to_string(&typed).unwrap(), toml_text);
            assert_eq!(toml::from_str::<Typed>(&toml_text).unwrap(), typed);
            let json_text = serde_json::to_string(&text).unwrap();
            assert_eq!(serde_json::to_string(&typed).unwrap(), json_text);
            assert_eq!(serde_json::from_str::<Typed>(&json_text).unwrap(), typed);
            let pretty = serde_json::to_string_pretty(&text).unwrap();
            assert_eq!(serde_json::to_string_pretty(&typed).unwrap(), pretty);
        }
        let id = Oid::from_hex(HEX).unwrap();
        assert_eq!(id.to_string(), HEX);
        assert_eq!(id, ObjectId::empty_tree(gix::hash::Kind::Sha1));
        assert_eq!(ObjectId::from(id), id.get());
    }

    #[test]
    fn refuses_what_is_not_a_full_hex_id() {
        for bad in [
            "",
            "4b825dc",
            &HEX[..39],
            &format!("{HEX}0"),
            "zz",
            "4b825dc642cb6eb9a060e54bf8d69288fbee490g",
            " 4b825dc642cb6eb9a060e54bf8d69288fbee490",
            "4b825dc642cb6eb9a060e54bf8d69288fbee4904\n",
            "not an id",
        ] {
            assert_eq!(Oid::from_hex(bad), None, "{bad:?}");
            let doc = format!("one = {}\n", toml::Value::from(bad));
            let err = toml::from_str::<Typed>(&doc).unwrap_err();
            assert!(err.to_string().contains("is not an object id"), "{err}");
            assert!(serde_json::from_str::<Typed>(&format!("{{\"one\":{bad:?}}}")).is_err());
        }
        // Not a string at all.
        assert!(toml::from_str::<Typed>("one = 7\n").is_err());
    }

    #[test]
    fn accepts_upper_case_as_op_toml_did_and_writes_lower_case() {
        // `ObjectId::from_hex`, which op.toml's ids were checked with,
        // takes either case.
        let upper = HEX.to_ascii_uppercase();
        assert!(ObjectId::from_hex(upper.as_bytes()).is_ok());
        let typed: Typed = toml::from_str(&format!("one = \"{upper}\"\n")).unwrap();
        assert_eq!(typed.one.to_string(), HEX);
        assert_eq!(toml::to_string(&typed).unwrap(), format!("one = \"{HEX}\"\n"));
    }
}
