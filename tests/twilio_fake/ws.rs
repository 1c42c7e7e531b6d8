//! Twilio's side of a ConversationRelay WebSocket, over tokio-tungstenite:
//! text frames both ways, pings answered, a close frame, or a connection
//! dropped without one.

use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{Error, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// What the server sent.
#[derive(Debug)]
pub enum Incoming {
    Text(String),
    Ping(Vec<u8>),
    /// A close frame.
    Close,
    /// The socket ended (or failed) without a close frame.
    Eof,
}

/// An upgraded connection, split into its halves.
pub struct Connection {
    pub reader: FrameReader,
    pub writer: FrameWriter,
}

/// Opens a WebSocket to `url` (`ws://`) with `headers` added to the
/// handshake. `Err(status)` when the server answers the handshake with
/// anything but `101 Switching Protocols`.
pub async fn connect(url: &str, headers: &[(&str, String)]) -> Result<Connection, u16> {
    let mut request = url.into_client_request().expect("a ws:// URL");
    for (name, value) in headers {
        request.headers_mut().insert(
            http::HeaderName::from_bytes(name.as_bytes()).expect("a header name"),
            http::HeaderValue::from_str(value).expect("a header value"),
        );
    }
    match tokio_tungstenite::connect_async(request).await {
        Ok((socket, _)) => {
            let (write, read) = socket.split();
            Ok(Connection {
                reader: FrameReader { read },
                writer: FrameWriter { write },
            })
        }
        Err(Error::Http(response)) => Err(response.status().as_u16()),
        Err(error) => panic!("the relay's host accepts connections: {error}"),
    }
}

/// The reading half: frames from the server.
pub struct FrameReader {
    read: SplitStream<Socket>,
}

impl FrameReader {
    /// The next text, ping or close frame (pongs and binary frames are
    /// skipped).
    pub async fn next(&mut self) -> Incoming {
        loop {
            match self.read.next().await {
                Some(Ok(Message::Text(text))) => return Incoming::Text(text.to_string()),
                Some(Ok(Message::Ping(payload))) => return Incoming::Ping(payload.to_vec()),
                Some(Ok(Message::Close(_))) => return Incoming::Close,
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return Incoming::Eof,
            }
        }
    }
}

/// The writing half: our frames to the server.
pub struct FrameWriter {
    write: SplitSink<Socket, Message>,
}

impl FrameWriter {
    pub async fn text(&mut self, text: &str) -> Result<(), Error> {
        self.write.send(Message::text(text)).await
    }

    pub async fn pong(&mut self, payload: &[u8]) -> Result<(), Error> {
        self.write
            .send(Message::Pong(payload.to_vec().into()))
            .await
    }

    pub async fn close(&mut self) -> Result<(), Error> {
        self.write.send(Message::Close(None)).await
    }
}
