//! Decoding: what a decoder expected and found ([`Token`]), the decode errors of bodies, watch
//! streams, lists and typed views, and media types.

use kube_wire::body::{BodyError, BodyTooLarge};
use kube_wire::codec::protobuf_full::InFullError;
use kube_wire::codec::value::ValueKind;
use kube_wire::codec::yaml::EncodeYamlError;
use kube_wire::error::{DecodeError, Token};
use kube_wire::media_type::MediaTypeError;
use kube_wire::view::shape::{Expected, Found, ViewError, WATCH_EVENT_TYPES};
use kube_wire::view::table::RowWidth;
use kube_wire::watch::lazy_list::ListError;
use kube_wire::watch::{Size, StreamError, UnsupportedStream};

use crate::i18n::{Localized, Msg, Text};

impl Localized for ValueKind {
    fn text(&self) -> Text {
        match self {
            ValueKind::Null => Text::verbatim("null"),
            ValueKind::Boolean => Msg::KindBoolean.into(),
            ValueKind::Integer => Msg::KindInteger.into(),
            ValueKind::Float => Msg::KindFloat.into(),
            ValueKind::String => Msg::KindString.into(),
            ValueKind::Bytes => Msg::KindBytes.into(),
            ValueKind::Array => Msg::KindArray.into(),
            ValueKind::Object => Msg::KindObject.into(),
        }
    }
}

impl Localized for Token {
    fn text(&self) -> Text {
        match self {
            Token::Verbatim(words) => Text::verbatim(words),
            Token::Kind(kind) => kind.text(),
            Token::Byte(byte) => Text::new(Msg::DecodeByte).with("byte", format!("0x{byte:02x}")),
            Token::Near { near, detail } => {
                Text::new(Msg::DecodeNear).with_text("near", near.as_ref()).with_text("detail", detail.as_ref())
            }
            Token::NestingAtMost(depth) | Token::SelfDescribedRun(depth) => {
                Text::new(msg_of(self)).with("depth", depth)
            }
            Token::InvalidUtf8At(at) | Token::DefiniteChunk(at) => Text::new(msg_of(self)).with("at", at),
            Token::StringBytes(len) | Token::Items(len) => Text::new(msg_of(self)).with("len", len),
            Token::Bignum(tag) | Token::Tag(tag) => Text::new(msg_of(self)).with("tag", tag),
            Token::KeyAgain(key) | Token::KeyTwice(key) => Text::new(msg_of(self)).with("key", key),
            Token::Integer(value) => Text::new(Msg::DecodeInteger).with("value", value),
            Token::Float(value) => Text::new(Msg::DecodeFloat).with("value", value),
            Token::SimpleValue(value) => Text::new(Msg::DecodeSimpleValue).with("value", value),
            Token::MagicPrefix(prefix) => Text::new(Msg::DecodeMagicPrefix).with("prefix", prefix),
            Token::BytesOf { len, what } => {
                Text::new(Msg::DecodeBytesOf).with("len", len).with_text("what", what.as_ref())
            }
            Token::Field(number) | Token::WireType(number) => Text::new(msg_of(self)).with("number", number),
            Token::ObjectMember(name) => Text::new(Msg::DecodeObjectMember).with("name", name),
            Token::EventStart(brace) => Text::new(Msg::DecodeEventStart).with("brace", brace),
            other => Text::new(msg_of(other)),
        }
    }
}

/// The catalogue message of a token (for a token with arguments, the message they fill).
fn msg_of(token: &Token) -> Msg {
    match token {
        Token::Verbatim(_) => Msg::Verbatim,
        Token::Kind(_) => Msg::Verbatim,
        Token::EndOfInput => Msg::DecodeEndOfInput,
        Token::Byte(_) => Msg::DecodeByte,
        Token::Near { .. } => Msg::DecodeNear,
        Token::None => Msg::DecodeNone,
        Token::More => Msg::DecodeMore,
        Token::CompleteJson => Msg::DecodeCompleteJson,
        Token::AfterComma => Msg::DecodeAfterComma,
        Token::Literal => Msg::DecodeLiteral,
        Token::CborLiteral => Msg::DecodeCborLiteral,
        Token::JsonValue => Msg::DecodeJsonValue,
        Token::StringKey => Msg::DecodeStringKey,
        Token::NumberInRange => Msg::DecodeNumberInRange,
        Token::NestingAtMost(_) => Msg::DecodeNestingAtMost,
        Token::DeeperNesting => Msg::DecodeDeeperNesting,
        Token::WellFormedYaml => Msg::DecodeWellFormedYaml,
        Token::DataItem => Msg::DecodeDataItem,
        Token::Break => Msg::DecodeBreak,
        Token::Utf8Text => Msg::DecodeUtf8Text,
        Token::InvalidUtf8At(_) => Msg::DecodeInvalidUtf8At,
        Token::CborItem => Msg::DecodeCborItem,
        Token::CborHead => Msg::DecodeCborHead,
        Token::StringBytes(_) => Msg::DecodeStringBytes,
        Token::BytesInsideTag22 => Msg::DecodeBytesInsideTag22,
        Token::Int64 => Msg::DecodeInt64,
        Token::Bignum(_) => Msg::DecodeBignum,
        Token::SupportedTag => Msg::DecodeSupportedTag,
        Token::Tag(_) => Msg::DecodeTag,
        Token::FiniteFloat => Msg::DecodeFiniteFloat,
        Token::ValidUtf8 => Msg::DecodeValidUtf8,
        Token::InvalidSequence => Msg::DecodeInvalidSequence,
        Token::DefiniteChunk(_) => Msg::DecodeDefiniteChunk,
        Token::MapKey => Msg::DecodeMapKey,
        Token::UniqueMapKeys => Msg::DecodeUniqueMapKeys,
        Token::KeyAgain(_) => Msg::DecodeKeyAgain,
        Token::SelfDescribedRun(_) => Msg::DecodeSelfDescribedRun,
        Token::Items(_) => Msg::DecodeItems,
        Token::Integer(_) => Msg::DecodeInteger,
        Token::Float(_) => Msg::DecodeFloat,
        Token::SimpleValue(_) => Msg::DecodeSimpleValue,
        Token::TextString => Msg::DecodeTextString,
        Token::Map => Msg::DecodeMap,
        Token::MagicPrefix(_) => Msg::DecodeMagicPrefix,
        Token::StatusWireType => Msg::DecodeStatusWireType,
        Token::OtherWireType => Msg::DecodeOtherWireType,
        Token::LengthDelimited => Msg::DecodeLengthDelimited,
        Token::Fixed64 => Msg::DecodeFixed64,
        Token::Fixed32 => Msg::DecodeFixed32,
        Token::BytesOf { .. } => Msg::DecodeBytesOf,
        Token::WatchEventType => Msg::DecodeWatchEventType,
        Token::WatchEventObject => Msg::DecodeWatchEventObject,
        Token::Utf8String => Msg::DecodeUtf8String,
        Token::InvalidUtf8 => Msg::DecodeInvalidUtf8,
        Token::VarintByte => Msg::DecodeVarintByte,
        Token::Varint64 => Msg::DecodeVarint64,
        Token::VarintLength => Msg::DecodeVarintLength,
        Token::LongerOne => Msg::DecodeLongerOne,
        Token::FieldNumber => Msg::DecodeFieldNumber,
        Token::Field(_) => Msg::DecodeField,
        Token::WireTypes => Msg::DecodeWireTypes,
        Token::WireType(_) => Msg::DecodeWireType,
        Token::ObjectMember(_) => Msg::DecodeObjectMember,
        Token::EventStart(_) => Msg::DecodeEventStart,
        Token::UniqueKeys => Msg::DecodeUniqueKeys,
        Token::KeyTwice(_) => Msg::DecodeKeyTwice,
        Token::FiniteNumber => Msg::DecodeFiniteNumber,
    }
}

impl Localized for DecodeError {
    fn text(&self) -> Text {
        Text::new(Msg::DecodeInvalid)
            .with("format", self.format)
            .with_text("expected", &self.expected)
            .with_text("found", &self.found)
            .with("offset", self.offset)
    }
}

impl Localized for InFullError {
    fn text(&self) -> Text {
        match self {
            InFullError::NoMessage { api_version, kind } => {
                Text::new(Msg::ProtobufNoMessage).with("api_version", api_version).with("kind", kind)
            }
            InFullError::Message { api_version, kind, problem } => Text::new(Msg::ProtobufBadMessage)
                .with("api_version", api_version)
                .with("kind", kind)
                .with("problem", problem),
        }
    }
}

impl Localized for EncodeYamlError {
    fn text(&self) -> Text {
        Text::new(Msg::CannotWriteYaml).with("error", &self.0)
    }
}

impl Localized for BodyError {
    fn text(&self) -> Text {
        match self {
            BodyError::Unsupported(found) => Text::new(Msg::BodyUnsupportedMediaType).with("found", found),
            BodyError::NoWatchFraming(found) => Text::new(Msg::BodyNoWatchFraming).with("found", found),
            BodyError::YamlNotLoaded => Text::new(Msg::BodyYamlNotLoaded),
            BodyError::Decode(error) => error.text(),
            BodyError::Stream(error) => error.text(),
            BodyError::InFull(error) => error.text(),
            BodyError::InFullEvent { number, error } => {
                Text::new(Msg::BodyWatchEventInFull).with("number", number).with_text("problem", error)
            }
            BodyError::TableRows(row_width) => row_width.text(),
        }
    }
}

impl Localized for StreamError {
    fn text(&self) -> Text {
        match self {
            StreamError::Decode { event, source } => {
                Text::new(Msg::StreamEventError).with("event", event).with_text("error", source)
            }
            StreamError::Event { event, source } => {
                Text::new(Msg::StreamEventError).with("event", event).with_text("error", source)
            }
            StreamError::Truncated { event, offset } => {
                Text::new(Msg::StreamTruncated).with("offset", offset).with("event", event)
            }
            StreamError::InFull { event, source } => {
                Text::new(Msg::StreamEventError).with("event", event).with_text("error", source)
            }
            StreamError::TooLarge { event, offset, limit, found } => Text::new(Msg::StreamTooLarge)
                .with("event", event)
                .with("offset", offset)
                .with("limit", limit)
                .with_text("found", found),
        }
    }
}

impl Localized for RowWidth {
    fn text(&self) -> Text {
        Text::new(Msg::TableRowWidth).with("row", self.row).with("cells", self.cells).with("columns", self.columns)
    }
}

impl Localized for BodyTooLarge {
    fn text(&self) -> Text {
        Text::new(Msg::BodyCutAtLimit).with("limit", self.limit)
    }
}

impl Localized for Size {
    fn text(&self) -> Text {
        match self {
            Size::Announced(bytes) => Text::new(Msg::SizeAnnounced).with("bytes", bytes),
            Size::MoreThan(bytes) => Text::new(Msg::SizeMoreThan).with("bytes", bytes),
        }
    }
}

impl Localized for UnsupportedStream {
    fn text(&self) -> Text {
        Text::new(Msg::UnsupportedWatchStream).with("found", &self.0)
    }
}

impl Localized for ListError {
    fn text(&self) -> Text {
        match self {
            ListError::Decode(error) => error.text(),
            ListError::Shape(error) => error.text(),
            ListError::NotAnObject => Msg::ListNotAnObject.into(),
        }
    }
}

impl Localized for MediaTypeError {
    fn text(&self) -> Text {
        match self {
            MediaTypeError::NotAMediaType(found) => {
                Text::new(Msg::MediaTypeExpected).with("found", format!("{found:?}"))
            }
            MediaTypeError::BadParameter { header, parameter } => Text::new(Msg::MediaTypeBadParameter)
                .with("header", format!("{header:?}"))
                .with("found", format!("{parameter:?}")),
            MediaTypeError::BadWeight(found) => Text::new(Msg::MediaTypeBadWeight).with("found", format!("{found:?}")),
            MediaTypeError::IncompleteConversion(found) => {
                Text::new(Msg::MediaTypeIncompleteConversion).with("found", format!("{found:?}"))
            }
        }
    }
}

impl Localized for ViewError {
    fn text(&self) -> Text {
        match self {
            ViewError::Shape { path, expected, found } => {
                Text::new(Msg::ViewShape).with_text("expected", expected).with("path", path).with_text("found", found)
            }
            ViewError::Kind { expected, found } => {
                Text::new(Msg::ViewKind).with("expected", expected).with("found", format!("{found:?}"))
            }
        }
    }
}

impl Localized for Expected {
    fn text(&self) -> Text {
        match self {
            Expected::Kind(kind) => kind.text(),
            Expected::ObjectWithMetadata => Msg::ViewObjectWithMetadata.into(),
            Expected::CollectionWithMetadata => Msg::ViewCollectionWithMetadata.into(),
            Expected::Status => Msg::ViewStatus.into(),
            Expected::WatchEventType => {
                let (last, values) = WATCH_EVENT_TYPES.split_last().unwrap_or((&"", &[]));
                Text::new(Msg::ViewOneOf).with("values", values.join(", ")).with("last", last)
            }
        }
    }
}

impl Localized for Found {
    fn text(&self) -> Text {
        match self {
            Found::Kind(kind) => kind.text(),
            Found::Verbatim(words) => Text::verbatim(words),
        }
    }
}

#[cfg(test)]
mod tests {
    use kube_wire::error::Format;

    use super::*;
    use crate::i18n::wire::tests::{check, check_all};

    /// One token of each kind (the match fails to compile when a variant is added without one).
    fn every_token() -> Vec<Token> {
        let boxed = |t: Token| Box::new(t);
        let all = vec![
            Token::Verbatim("`,` or `]`".into()),
            Token::Kind(ValueKind::Array),
            Token::EndOfInput,
            Token::Byte(7),
            Token::Near { near: boxed(Token::Byte(9)), detail: boxed("did not find expected key".into()) },
            Token::None,
            Token::More,
            Token::CompleteJson,
            Token::AfterComma,
            Token::Literal,
            Token::CborLiteral,
            Token::JsonValue,
            Token::StringKey,
            Token::NumberInRange,
            Token::NestingAtMost(128),
            Token::DeeperNesting,
            Token::WellFormedYaml,
            Token::DataItem,
            Token::Break,
            Token::Utf8Text,
            Token::InvalidUtf8At(3),
            Token::CborItem,
            Token::CborHead,
            Token::StringBytes(12),
            Token::BytesInsideTag22,
            Token::Int64,
            Token::Bignum(2),
            Token::SupportedTag,
            Token::Tag(24),
            Token::FiniteFloat,
            Token::ValidUtf8,
            Token::InvalidSequence,
            Token::DefiniteChunk(4),
            Token::MapKey,
            Token::UniqueMapKeys,
            Token::KeyAgain("\"a\"".into()),
            Token::SelfDescribedRun(128),
            Token::Items(3),
            Token::Integer(-18446744073709551616),
            Token::Float("1.5".into()),
            Token::SimpleValue(16),
            Token::TextString,
            Token::Map,
            Token::MagicPrefix("6b 38 73 00"),
            Token::StatusWireType,
            Token::OtherWireType,
            Token::LengthDelimited,
            Token::Fixed64,
            Token::Fixed32,
            Token::BytesOf { len: 8, what: boxed(Token::Fixed64) },
            Token::WatchEventType,
            Token::WatchEventObject,
            Token::Utf8String,
            Token::InvalidUtf8,
            Token::VarintByte,
            Token::Varint64,
            Token::VarintLength,
            Token::LongerOne,
            Token::FieldNumber,
            Token::Field(0),
            Token::WireTypes,
            Token::WireType(6),
            Token::ObjectMember("\"object\""),
            Token::EventStart("'{'"),
            Token::UniqueKeys,
            Token::KeyTwice("\"a\"".into()),
            Token::FiniteNumber,
        ];
        for token in &all {
            // Every variant once: a new one is a compile error here until it has a sample above.
            match token {
                Token::Verbatim(_)
                | Token::Kind(_)
                | Token::EndOfInput
                | Token::Byte(_)
                | Token::Near { .. }
                | Token::None
                | Token::More
                | Token::CompleteJson
                | Token::AfterComma
                | Token::Literal
                | Token::CborLiteral
                | Token::JsonValue
                | Token::StringKey
                | Token::NumberInRange
                | Token::NestingAtMost(_)
                | Token::DeeperNesting
                | Token::WellFormedYaml
                | Token::DataItem
                | Token::Break
                | Token::Utf8Text
                | Token::InvalidUtf8At(_)
                | Token::CborItem
                | Token::CborHead
                | Token::StringBytes(_)
                | Token::BytesInsideTag22
                | Token::Int64
                | Token::Bignum(_)
                | Token::SupportedTag
                | Token::Tag(_)
                | Token::FiniteFloat
                | Token::ValidUtf8
                | Token::InvalidSequence
                | Token::DefiniteChunk(_)
                | Token::MapKey
                | Token::UniqueMapKeys
                | Token::KeyAgain(_)
                | Token::SelfDescribedRun(_)
                | Token::Items(_)
                | Token::Integer(_)
                | Token::Float(_)
                | Token::SimpleValue(_)
                | Token::TextString
                | Token::Map
                | Token::MagicPrefix(_)
                | Token::StatusWireType
                | Token::OtherWireType
                | Token::LengthDelimited
                | Token::Fixed64
                | Token::Fixed32
                | Token::BytesOf { .. }
                | Token::WatchEventType
                | Token::WatchEventObject
                | Token::Utf8String
                | Token::InvalidUtf8
                | Token::VarintByte
                | Token::Varint64
                | Token::VarintLength
                | Token::LongerOne
                | Token::FieldNumber
                | Token::Field(_)
                | Token::WireTypes
                | Token::WireType(_)
                | Token::ObjectMember(_)
                | Token::EventStart(_)
                | Token::UniqueKeys
                | Token::KeyTwice(_)
                | Token::FiniteNumber => {}
            }
        }
        all
    }

    #[test]
    fn every_token_reads_in_english_as_its_catalogue_text() {
        let tokens = every_token();
        assert_eq!(tokens.len(), 67);
        check_all(&tokens);
        check_all(&[
            ValueKind::Null,
            ValueKind::Boolean,
            ValueKind::Integer,
            ValueKind::Float,
            ValueKind::String,
            ValueKind::Bytes,
            ValueKind::Array,
            ValueKind::Object,
        ]);
        // Only a library's own words are verbatim; each other token has its own message.
        for token in tokens.iter().filter(|t| !matches!(t, Token::Verbatim(_) | Token::Kind(_))) {
            assert_ne!(token.text().msg, Msg::Verbatim, "{token:?}");
        }
    }

    #[test]
    fn decode_errors_read_in_english_as_their_catalogue_texts() {
        let decode = DecodeError::new(Format::Cbor, Token::MapKey, ValueKind::Array, 7);
        check(&decode);
        let in_full = InFullError::Message { api_version: "v1".into(), kind: "Pod".into(), problem: "bad".into() };
        check(&in_full);
        check(&InFullError::NoMessage { api_version: "example.com/v1".into(), kind: "Widget".into() });
        let view = ViewError::Shape {
            path: "$.type".into(),
            expected: Expected::WatchEventType,
            found: Found::Verbatim("\"X\"".into()),
        };
        check(&view);
        for expected in [
            Expected::Kind(ValueKind::Object),
            Expected::ObjectWithMetadata,
            Expected::CollectionWithMetadata,
            Expected::Status,
        ] {
            check(&ViewError::Shape { path: "$".into(), expected, found: Found::Kind(ValueKind::Null) });
        }
        check(&ViewError::Kind { expected: "Status".into(), found: "Pod".into() });
        let stream = StreamError::Truncated { event: 3, offset: 40 };
        check(&stream);
        check(&StreamError::Decode { event: 2, source: decode.clone() });
        check(&StreamError::Event { event: 2, source: view.clone() });
        check(&StreamError::InFull { event: 2, source: in_full.clone() });
        check(&BodyTooLarge { limit: 134_217_728 });
        check(&RowWidth { row: 1, cells: 5, columns: 3 });
        check(&BodyError::TableRows(RowWidth { row: 0, cells: 1, columns: 3 }));
        for found in [Size::Announced(1 << 30), Size::MoreThan(16_777_300)] {
            check(&StreamError::TooLarge { event: 1, offset: 0, limit: 16_777_216, found });
        }
        check(&UnsupportedStream("application/yaml".into()));
        check(&BodyError::Unsupported("text/html".into()));
        check(&BodyError::NoWatchFraming("application/yaml".into()));
        check(&BodyError::Decode(decode.clone()));
        check(&BodyError::Stream(stream));
        check(&BodyError::InFull(in_full.clone()));
        check(&BodyError::InFullEvent { number: 2, error: in_full });
        check(&ListError::Decode(decode));
        check(&ListError::Shape(view));
        check(&ListError::NotAnObject);
        check(&MediaTypeError::NotAMediaType("x".into()));
        check(&MediaTypeError::BadParameter { header: "a/b;c".into(), parameter: "c".into() });
        check(&MediaTypeError::BadWeight("2".into()));
        check(&MediaTypeError::IncompleteConversion("as=Table".into()));
        check(&EncodeYamlError("unrepresentable".into()));
    }
}
