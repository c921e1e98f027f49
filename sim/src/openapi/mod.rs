//! OpenAPI: the v3 documents of every served group version and their index, and the swagger
//! 2.0 document (`/openapi/v2`) in JSON and gnostic's protobuf, made from the vendored real
//! documents and Kubernetes 1.36.0 definitions (`documents` says which comes from where).

pub mod convert;
pub mod definitions;
pub mod documents;
pub mod gnostic;
pub mod paths;
pub mod serve;
