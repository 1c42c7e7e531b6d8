//! A fresh PostgreSQL schema per test, on the server named by
//! `AGENTCALL_TEST_POSTGRES` (tests skip with a notice when it is unset).
#![allow(dead_code)]

use std::str::FromStr;

use agentcall::store::postgres::PostgresStore;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};

/// A fresh schema on the test server.
pub struct TestSchema {
    options: PgConnectOptions,
    name: String,
}

impl TestSchema {
    /// `None` (after saying so) when no server is configured.
    pub async fn create() -> Option<Self> {
        let Ok(url) = std::env::var("AGENTCALL_TEST_POSTGRES") else {
            println!("skipped: set AGENTCALL_TEST_POSTGRES");
            return None;
        };
        let options = PgConnectOptions::from_str(&url).expect("a postgres:// URL");
        let name = format!("agentcall_test_{}", uuid::Uuid::new_v4().simple());
        let admin = PgPool::connect_with(options.clone())
            .await
            .expect("connect");
        sqlx::query(&format!("CREATE SCHEMA {name}"))
            .execute(&admin)
            .await
            .expect("create schema");
        admin.close().await;
        Some(Self { options, name })
    }

    /// A pool of its own (a separate "instance") working in the schema.
    pub async fn pool(&self, size: u32) -> PgPool {
        let options = self
            .options
            .clone()
            .options([("search_path", self.name.as_str())]);
        PgPoolOptions::new()
            .max_connections(size)
            .connect_with(options)
            .await
            .expect("connect")
    }

    pub async fn store(&self, size: u32) -> PostgresStore {
        PostgresStore::connect_with(self.pool(size).await)
            .await
            .expect("migrate")
    }

    pub async fn drop(self) {
        let admin = PgPool::connect_with(self.options).await.expect("connect");
        sqlx::query(&format!("DROP SCHEMA {} CASCADE", self.name))
            .execute(&admin)
            .await
            .expect("drop schema");
        admin.close().await;
    }
}
