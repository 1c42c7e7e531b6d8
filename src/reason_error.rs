//! The shape of an error that is a reason in words, whether it may pass,
//! and its cause: [`ExtractError`](crate::extract::ExtractError) and
//! [`MindError`](crate::agent::MindError).

/// Declares an error struct with a reason, a transient flag and a source.
macro_rules! reason_error {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        ///
        /// It says whether trying again later may help
        /// ([`is_transient`](Self::is_transient)) and keeps its cause as its
        /// source.
        #[derive(Debug, thiserror::Error)]
        #[error("{}{reason}", $prefix)]
        pub struct $name {
            reason: String,
            transient: bool,
            #[source]
            source: Option<$crate::BoxError>,
        }

        impl $name {
            /// An error that the same input will meet again (bad output, a
            /// refusal, a request that cannot succeed as configured).
            pub fn new(reason: impl Into<String>) -> Self {
                Self {
                    reason: reason.into(),
                    transient: false,
                    source: None,
                }
            }

            /// An error that may pass (a timeout, a broken connection, a 5xx).
            pub fn transient(reason: impl Into<String>) -> Self {
                Self {
                    transient: true,
                    ..Self::new(reason)
                }
            }

            /// The same error, caused by `source`.
            pub fn with_source(mut self, source: impl Into<$crate::BoxError>) -> Self {
                self.source = Some(source.into());
                self
            }

            /// What went wrong, in words (no secrets, no caller text).
            pub fn reason(&self) -> &str {
                &self.reason
            }

            /// Whether trying again later may succeed.
            pub fn is_transient(&self) -> bool {
                self.transient
            }
        }
    };
}

pub(crate) use reason_error;
