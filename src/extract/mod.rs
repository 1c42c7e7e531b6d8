//! Field extraction and summaries (spec 2.3).

mod contract;

pub use contract::{ExtractError, Extraction, ExtractionInput, Extractor};

use std::collections::BTreeMap;

use async_trait::async_trait;
use serde_json::{Map, Value};

use crate::domain::FieldDefinition;

/// Placeholder until the offline engine lands.
#[derive(Debug, Clone, Default)]
pub struct OfflineExtractor;

#[async_trait]
impl Extractor for OfflineExtractor {
    async fn extract(&self, _input: ExtractionInput<'_>) -> Result<Extraction, ExtractError> {
        Ok(Extraction::default())
    }
}

/// Values conformed to the requested fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conformed {
    /// Exactly the requested keys.
    pub values: Map<String, Value>,
    /// Why a value is null.
    pub reasons: BTreeMap<String, String>,
}

/// Conforms raw values to the requested fields.
pub fn conform(fields: &[FieldDefinition], _raw: &Map<String, Value>) -> Conformed {
    let mut out = Conformed::default();
    for f in fields {
        out.values.insert(f.name.clone(), Value::Null);
    }
    out
}

/// Writes a summary.
pub fn summarize(
    objective: &str,
    _outcome: &str,
    _fields: &[FieldDefinition],
    _extracted: &Map<String, Value>,
) -> String {
    format!("Called to {objective}.")
}
