//! One call's relay session: the carrier's frames in, the conversation
//! engine in the middle, our frames out, over any stream and sink of text
//! frames (a WebSocket from axum, tokio-tungstenite or anything else).

use std::collections::{BTreeMap, VecDeque};
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::{Sink, SinkExt, Stream, StreamExt};
use tokio::sync::mpsc;
use tokio::time::{Instant, sleep_until};

use super::messages::{Inbound, Outbound};
use crate::agent::{Act, Acts, AgentLimits, Conversation, Heard, speaking_time};
use crate::transcript::Transcript;

/// The first frame of a session, naming its call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    /// The carrier's id of the call.
    pub carrier_call_id: String,
    /// The TwiML's `<Parameter>`s, by name.
    pub parameters: BTreeMap<String, String>,
}

/// What a session tells its host after every turn, and after every
/// utterance heard before the mind is asked to answer it: the transcript so
/// far. The session waits for the returned future (at most
/// [`KEEP_TIMEOUT`]) before it goes on, so what was heard is kept even if
/// the recipient hangs up while the mind is thinking.
pub type OnTurn = Box<dyn FnMut(Transcript) -> BoxFuture<'static, ()> + Send>;

/// How long a session waits for its host to keep the transcript
/// ([`OnTurn`]). A slower keep is given up so a slow store cannot stall
/// the call; the next one carries the whole transcript again.
pub const KEEP_TIMEOUT: Duration = Duration::from_secs(2);

/// What a session needs once it knows its call.
pub struct SessionPlan {
    /// The call's conversation, not yet opened.
    pub conversation: Conversation,
    /// The agent's limits (silence and wrap-up timing).
    pub limits: AgentLimits,
    /// How long the call may last from now (its time limit).
    pub max_duration: Duration,
    /// Whether the carrier speaks the greeting itself (ConversationRelay's
    /// `welcomeGreeting`, which cannot be interrupted); otherwise the
    /// session sends it as the first turn.
    pub carrier_speaks_greeting: bool,
    /// Told the transcript after every turn and every utterance heard, so
    /// it outlives a session that dies mid-call (a host keeps it where the
    /// call's end can find it).
    pub on_turn: Option<OnTurn>,
}

impl std::fmt::Debug for SessionPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionPlan")
            .field("conversation", &self.conversation)
            .field("limits", &self.limits)
            .field("max_duration", &self.max_duration)
            .field("carrier_speaks_greeting", &self.carrier_speaks_greeting)
            .field("on_turn", &self.on_turn.as_ref().map(|_| "…"))
            .finish()
    }
}

/// How a session ended.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionEnd {
    /// The session's setup.
    pub setup: Setup,
    /// The conversation as spoken and heard.
    pub transcript: Transcript,
    /// Why the agent hung up; `None` when the carrier closed the session
    /// first (the recipient hung up, or the time limit cut the line).
    pub hangup_reason: Option<String>,
}

/// Why a session could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RelayError {
    /// The carrier did not open with a `setup` frame in time.
    #[error("the session did not start with a setup frame")]
    NoSetup,
    /// The setup names no call this service knows (or may run here).
    #[error("the session's call is unknown: {0}")]
    UnknownCall(String),
    /// Frames could not be sent to the carrier.
    #[error("the carrier's socket failed: {0}")]
    Transport(String),
}

/// Most frames waiting for the carrier's socket. A turn is bounded
/// ([`AgentLimits::max_turn_bytes`](crate::agent::AgentLimits::max_turn_bytes)
/// bytes, so at most that many tokens), so only a socket that stopped
/// taking frames fills it.
const FRAME_QUEUE: usize = 4_096;

/// How long the carrier has to send `setup` after connecting.
const SETUP_TIMEOUT: Duration = Duration::from_secs(10);
/// Time allowed, past its estimated length, for the goodbye to be heard
/// before the session ends (the carrier plays text as it synthesizes it).
const GOODBYE_MARGIN: Duration = Duration::from_secs(1);

/// Runs one relay session to its end.
///
/// `plan` turns the setup frame into the call's conversation (looking the
/// call up in the store, say); its error ends the session at once. Then
/// the recipient's complete utterances (`prompt` with `last: true`),
/// interruptions, keys and silences drive the conversation, and its acts
/// go out as `text` tokens (the last with `last: true`), `sendDigits` and,
/// once a goodbye has had time to be spoken, `end` with
/// `{"reason": …}` as its `handoffData`.
///
/// Frames that cannot be delivered (the carrier hung up mid-turn) do not
/// make the session fail: what was said and heard is returned either way,
/// and [`SessionPlan::on_turn`] has had it after every turn.
///
/// Barge-in: from the moment an `interrupt` frame arrives, the rest of the
/// turn being spoken is no longer sent, and the turn is cut in the history
/// and the transcript to what the carrier says was heard. The call's time
/// limit is the carrier's; the agent is told to wrap up
/// [`AgentLimits::wrap_up_before`] it. A silence is timed from the
/// estimated end of the agent's speech ([`speaking_time`]).
pub async fn run_session<I, O, E, P, F>(
    incoming: I,
    outgoing: O,
    plan: P,
) -> Result<SessionEnd, RelayError>
where
    I: Stream<Item = Result<String, E>> + Unpin + Send,
    O: Sink<String> + Unpin + Send,
    O::Error: std::fmt::Display,
    E: std::fmt::Display,
    P: FnOnce(Setup) -> F + Send,
    F: Future<Output = Result<SessionPlan, RelayError>> + Send,
{
    let muted = AtomicBool::new(false);
    let (events, mut heard) = mpsc::unbounded_channel();
    let (frames, to_send) = mpsc::channel(FRAME_QUEUE);
    let reader = read_frames(incoming, events, &muted);
    let writer = write_frames(outgoing, to_send, &muted);
    let session = async {
        tokio::select! {
            ended = converse(&mut heard, Outgoing(frames), plan) => ended,
            never = reader => match never {},
        }
    };
    let (ended, written) = tokio::join!(session, writer);
    if let Err(error) = written {
        // Frames that could not go out (the carrier hung up mid-turn)
        // change nothing about what was said and heard.
        tracing::info!(%error, "relay frames not delivered at the end of the session");
    }
    ended
}

/// What the writer is handed, in order.
enum ToSend {
    /// A frame; `token` frames are dropped while an interruption mutes them.
    Frame { frame: Outbound, token: bool },
    /// A new agent turn starts: an earlier interruption no longer applies.
    Unmute,
}

/// Reads the carrier's frames until its socket closes, then waits forever
/// (the session ends through the conversation).
async fn read_frames<I, E>(
    mut incoming: I,
    events: mpsc::UnboundedSender<Inbound>,
    muted: &AtomicBool,
) -> std::convert::Infallible
where
    I: Stream<Item = Result<String, E>> + Unpin,
    E: std::fmt::Display,
{
    while let Some(frame) = incoming.next().await {
        let frame = match frame {
            Ok(frame) => frame,
            Err(error) => {
                tracing::info!(%error, "relay socket closed with an error");
                break;
            }
        };
        let Some(inbound) = Inbound::parse(&frame) else {
            tracing::warn!(
                bytes = frame.len(),
                "relay frame is not a protocol message; skipped"
            );
            continue;
        };
        if matches!(inbound, Inbound::Interrupt { .. }) {
            // At once, not when the conversation gets to it: the rest of
            // the interrupted turn must not be spoken.
            muted.store(true, Ordering::SeqCst);
        }
        if events.send(inbound).is_err() {
            break;
        }
    }
    drop(events);
    std::future::pending().await
}

/// Sends frames in order until the session is done with the sender.
async fn write_frames<O>(
    mut outgoing: O,
    mut to_send: mpsc::Receiver<ToSend>,
    muted: &AtomicBool,
) -> Result<(), RelayError>
where
    O: Sink<String> + Unpin,
    O::Error: std::fmt::Display,
{
    let failed = |error: O::Error| RelayError::Transport(error.to_string());
    while let Some(next) = to_send.recv().await {
        match next {
            ToSend::Unmute => muted.store(false, Ordering::SeqCst),
            ToSend::Frame { token: true, .. } if muted.load(Ordering::SeqCst) => {}
            ToSend::Frame { frame, .. } => outgoing.send(frame.to_frame()).await.map_err(failed)?,
        }
    }
    outgoing.close().await.map_err(failed)
}

/// The conversation's acts, turned into frames.
struct Outgoing(mpsc::Sender<ToSend>);

impl Outgoing {
    fn send(&self, frame: Outbound, token: bool) {
        self.queue(ToSend::Frame { frame, token });
    }

    fn queue(&self, next: ToSend) {
        match self.0.try_send(next) {
            Ok(()) => {}
            // The writer only stops when the socket failed; the session
            // then ends.
            Err(mpsc::error::TrySendError::Closed(_)) => {}
            Err(mpsc::error::TrySendError::Full(_)) => {
                tracing::warn!(
                    queued = FRAME_QUEUE,
                    "the carrier is not taking frames; one is dropped"
                );
            }
        }
    }
}

/// One agent turn's acts: the frames go out as they come; the words and a
/// hang-up are kept for the session's timing.
struct TurnActs<'a> {
    out: &'a Outgoing,
    said: String,
    hangup: Option<String>,
}

impl Acts for TurnActs<'_> {
    fn act(&mut self, act: Act) {
        match act {
            Act::Say(token) => {
                self.said.push_str(&token);
                self.out.send(Outbound::Text { token, last: false }, true);
            }
            Act::EndOfTurn => self.out.send(
                Outbound::Text {
                    token: String::new(),
                    last: true,
                },
                false,
            ),
            Act::SendDigits(digits) => self.out.send(Outbound::SendDigits { digits }, false),
            Act::Hangup { reason } => self.hangup = Some(reason),
        }
    }
}

async fn converse<P, F>(
    heard: &mut mpsc::UnboundedReceiver<Inbound>,
    out: Outgoing,
    plan: P,
) -> Result<SessionEnd, RelayError>
where
    P: FnOnce(Setup) -> F,
    F: Future<Output = Result<SessionPlan, RelayError>>,
{
    let setup = match tokio::time::timeout(SETUP_TIMEOUT, heard.recv()).await {
        Ok(Some(Inbound::Setup {
            call_sid,
            custom_parameters,
        })) => Setup {
            carrier_call_id: call_sid,
            parameters: custom_parameters,
        },
        _ => return Err(RelayError::NoSetup),
    };
    let started = Instant::now();
    let SessionPlan {
        mut conversation,
        limits,
        max_duration,
        carrier_speaks_greeting,
        on_turn,
    } = plan(setup.clone()).await?;
    let mut keep = Keeper(on_turn);
    let wrap_up_at = started + max_duration.saturating_sub(limits.wrap_up_before);
    let mut wrapped_up = false;

    let mut turn = TurnActs {
        out: &out,
        said: String::new(),
        hangup: None,
    };
    if carrier_speaks_greeting {
        conversation.open(&mut Vec::new());
    } else {
        conversation.open(&mut turn);
    }
    let greeting = conversation
        .history()
        .first()
        .map(|t| t.text.clone())
        .unwrap_or_default();
    keep.tell(&conversation).await;
    let mut closed = false;
    // Frames that arrived while the mind was answering, in order.
    let mut pending = VecDeque::new();
    // While the recipient is expected to speak: when the silence is up.
    let mut silence_at = Some(Instant::now() + speaking_time(&greeting) + limits.silence_timeout);
    let hangup = loop {
        if let Some(reason) = turn.hangup.take() {
            break Some((reason, speaking_time(&turn.said)));
        }
        let event = match pending.pop_front() {
            Some(frame) => Event::Frame(frame),
            None => tokio::select! {
                frame = heard.recv() => match frame {
                    Some(frame) => Event::Frame(frame),
                    None => {
                        closed = true; // the carrier closed the session
                        break None;
                    }
                },
                _ = sleep_until(silence_at.unwrap_or(started)), if silence_at.is_some() => Event::Silence,
                _ = sleep_until(wrap_up_at), if !wrapped_up => Event::WrapUp,
            },
        };
        let heard_now = match event {
            Event::WrapUp => {
                wrapped_up = true;
                conversation.wrap_up();
                continue;
            }
            Event::Silence => Heard::Silence,
            Event::Frame(Inbound::Prompt {
                voice_prompt,
                last: true,
            }) => Heard::Said(voice_prompt),
            Event::Frame(Inbound::Dtmf { digit }) => Heard::Digits(digit),
            Event::Frame(Inbound::Interrupt {
                utterance_until_interrupt,
            }) => {
                // Cuts the turn the recipient spoke over; they speak next.
                conversation.take_in(
                    Heard::Interrupted {
                        heard: utterance_until_interrupt,
                    },
                    &mut turn,
                );
                keep.tell(&conversation).await;
                silence_at = Some(Instant::now() + limits.silence_timeout);
                continue;
            }
            Event::Frame(Inbound::Error { description }) => {
                tracing::warn!(%description, "the carrier refused a relay frame");
                continue;
            }
            Event::Frame(_) => continue,
        };
        // A new agent turn: an interruption of the previous one is over.
        out.queue(ToSend::Unmute);
        turn.said.clear();
        if conversation.take_in(heard_now, &mut turn) {
            // What was heard is kept before the mind is asked: the
            // recipient may hang up while it thinks.
            keep.tell(&conversation).await;
            let answered = {
                let answer = conversation.answer(&mut turn);
                tokio::pin!(answer);
                loop {
                    tokio::select! {
                        () = &mut answer => break true,
                        frame = heard.recv() => match frame {
                            Some(frame) => pending.push_back(frame),
                            // The line is dead: the mind's turn is dropped
                            // (its request cancelled), nobody would hear it.
                            None => break false,
                        },
                    }
                }
            };
            if !answered {
                // What the recipient said before hanging up is kept too.
                for frame in pending.drain(..) {
                    let last_words = match frame {
                        Inbound::Prompt {
                            voice_prompt,
                            last: true,
                        } => Heard::Said(voice_prompt),
                        Inbound::Dtmf { digit } => Heard::Digits(digit),
                        _ => continue,
                    };
                    conversation.take_in(last_words, &mut Vec::new());
                }
                keep.tell(&conversation).await;
                closed = true;
                break None;
            }
        }
        keep.tell(&conversation).await;
        silence_at = Some(Instant::now() + speaking_time(&turn.said) + limits.silence_timeout);
    };
    let hangup_reason = match hangup {
        Some((reason, goodbye)) => {
            // The goodbye is heard before the line closes; a carrier that
            // closes first (the recipient hung up) ends the wait.
            let heard_by = Instant::now() + goodbye + GOODBYE_MARGIN;
            while !closed {
                tokio::select! {
                    frame = heard.recv() => closed = frame.is_none(),
                    _ = sleep_until(heard_by) => break,
                }
            }
            if !closed {
                let handoff = serde_json::json!({ "reason": reason }).to_string();
                out.send(
                    Outbound::End {
                        handoff_data: handoff,
                    },
                    false,
                );
            }
            Some(reason)
        }
        None => None,
    };
    Ok(SessionEnd {
        setup,
        transcript: conversation.transcript(),
        hangup_reason,
    })
}

/// The host's [`OnTurn`], told the transcript when it changed.
struct Keeper(Option<OnTurn>);

impl Keeper {
    async fn tell(&mut self, conversation: &Conversation) {
        let Some(on_turn) = self.0.as_mut() else {
            return;
        };
        let kept = on_turn(conversation.transcript());
        if tokio::time::timeout(KEEP_TIMEOUT, kept).await.is_err() {
            tracing::warn!(timeout = ?KEEP_TIMEOUT, "the transcript was not kept in time; the call goes on");
        }
    }
}

/// What the session reacts to next.
enum Event {
    Frame(Inbound),
    Silence,
    WrapUp,
}

#[cfg(test)]
mod tests;
