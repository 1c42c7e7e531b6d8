//! Field definitions of a placement request (spec 2.2).

use serde::{Deserialize, Serialize};

/// Declared type of a field (spec 2.2). Default `string`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    /// Free text.
    #[default]
    String,
    /// `true` or `false`.
    Boolean,
    /// A JSON number.
    Number,
}

impl FieldType {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Boolean => "boolean",
            Self::Number => "number",
        }
    }
}

/// A caller-defined field to extract from the conversation (spec 2.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct FieldDefinition {
    /// Key under which the value appears in `extracted`.
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 64))]
    pub name: String,
    /// Declared type.
    #[serde(rename = "type", default)]
    pub field_type: FieldType,
    /// Guidance on what to extract.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(max_length = 500))]
    pub description: Option<String>,
}

impl FieldDefinition {
    /// A field of the given name and type, without description.
    pub fn new(name: impl Into<String>, field_type: FieldType) -> Self {
        Self {
            name: name.into(),
            field_type,
            description: None,
        }
    }

    /// Adds a description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }
}
