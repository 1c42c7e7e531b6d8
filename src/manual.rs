//! Long-form notes: the decisions behind the API, what each store
//! guarantees, receiving webhooks, and the error tokens. The same pages are
//! in the repository's `docs/` folder.

pub mod decisions {
    #![doc = include_str!("../docs/decisions.md")]
}

pub mod errors {
    #![doc = include_str!("../docs/errors.md")]
}

pub mod stores {
    #![doc = include_str!("../docs/stores.md")]
}

pub mod webhooks {
    #![doc = include_str!("../docs/webhooks.md")]
}

#[cfg(test)]
mod tests {
    use crate::domain::ErrorToken;

    /// `docs/errors.md` shows exactly the table of [`ErrorToken`].
    #[test]
    fn the_errors_page_is_the_token_table() {
        let page = include_str!("../docs/errors.md");
        let begin = page.find("-->\n").expect("table markers") + 4;
        let end = page.find("<!-- END TABLE -->").expect("table markers");
        assert_eq!(
            &page[begin..end],
            ErrorToken::markdown_table(),
            "regenerate docs/errors.md from ErrorToken::markdown_table()"
        );
    }
}
