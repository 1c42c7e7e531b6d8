//! [`NoExtractor`]: the default when no extractor is configured.

use async_trait::async_trait;
use serde_json::Value;

use super::{ExtractError, Extraction, ExtractionInput, Extractor};

/// The reason recorded for every field of a call whose service has no
/// extractor.
pub const NO_EXTRACTOR: &str = "no_extractor: no extractor is configured";

/// Extracts nothing: every field is `null` with the reason
/// [`NO_EXTRACTOR`], and the service writes the summary. The default of
/// [`AgentCallBuilder::extractor`](crate::AgentCallBuilder::extractor);
/// plug in an LLM extractor ([`llm::LlmExtractor`](crate::extract::llm),
/// feature `llm`) or the rules of the `agentcall-rules` crate.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoExtractor;

#[async_trait]
impl Extractor for NoExtractor {
    async fn extract(&self, input: ExtractionInput<'_>) -> Result<Extraction, ExtractError> {
        let mut extraction = Extraction::default();
        for field in input.fields {
            extraction.values.insert(field.name.clone(), Value::Null);
            extraction
                .reasons
                .insert(field.name.clone(), NO_EXTRACTOR.to_owned());
        }
        Ok(extraction)
    }
}
