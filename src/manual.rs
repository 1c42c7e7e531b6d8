//! Long-form notes: the decisions behind the API, the agent, real calls over
//! Twilio, field extraction, guardrails, the API's extensions, what each
//! store guarantees, receiving webhooks, and the error tokens. The same
//! pages are in the repository's `docs/` folder.

pub mod agent {
    #![doc = include_str!("../docs/agent.md")]
}

pub mod api_extensions {
    #![doc = include_str!("../docs/api-extensions.md")]
}

pub mod decisions {
    #![doc = include_str!("../docs/decisions.md")]
}

pub mod errors {
    #![doc = include_str!("../docs/errors.md")]
}

pub mod extraction {
    #![doc = include_str!("../docs/extraction.md")]
}

pub mod guardrails {
    #![doc = include_str!("../docs/guardrails.md")]
}

pub mod stores {
    #![doc = include_str!("../docs/stores.md")]
}

pub mod twilio {
    #![doc = include_str!("../docs/twilio.md")]
}

pub mod webhooks {
    #![doc = include_str!("../docs/webhooks.md")]
}

#[cfg(test)]
mod tests {
    use crate::domain::{CallError, ErrorToken};

    /// The part of `page` between a `<!-- BEGIN {name}… -->` line and
    /// `<!-- END {name} -->`.
    fn generated<'a>(page: &'a str, name: &str) -> &'a str {
        let begin = page
            .find(&format!("<!-- BEGIN {name}"))
            .expect("begin marker");
        let begin = begin + page[begin..].find("-->\n").expect("marker end") + 4;
        let end = page
            .find(&format!("<!-- END {name} -->"))
            .expect("end marker");
        &page[begin..end]
    }

    /// `docs/errors.md` shows exactly the table of [`ErrorToken`].
    #[test]
    fn the_errors_page_is_the_token_table() {
        let page = include_str!("../docs/errors.md");
        assert_eq!(
            generated(page, "TABLE"),
            ErrorToken::markdown_table(),
            "regenerate docs/errors.md from ErrorToken::markdown_table()"
        );
        assert_eq!(
            generated(page, "CALL TABLE"),
            CallError::markdown_table(),
            "regenerate docs/errors.md from CallError::markdown_table()"
        );
    }
}
