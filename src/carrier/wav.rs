//! A tiny WAV writer for simulated recordings.

use bytes::Bytes;

const SAMPLE_RATE: u32 = 8_000;

/// A mono 16-bit PCM WAV at 8 kHz of a `frequency` Hz tone lasting `millis`.
pub(crate) fn sine_wav(frequency: f32, millis: u32) -> Bytes {
    let samples = SAMPLE_RATE * millis / 1000;
    let data_len = samples * 2;
    let mut out = Vec::with_capacity(44 + data_len as usize);
    out.extend_from_slice(b"RIFF");
    out.extend_from_slice(&(36 + data_len).to_le_bytes());
    out.extend_from_slice(b"WAVEfmt ");
    out.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    out.extend_from_slice(&1u16.to_le_bytes()); // PCM
    out.extend_from_slice(&1u16.to_le_bytes()); // mono
    out.extend_from_slice(&SAMPLE_RATE.to_le_bytes());
    out.extend_from_slice(&(SAMPLE_RATE * 2).to_le_bytes()); // byte rate
    out.extend_from_slice(&2u16.to_le_bytes()); // block align
    out.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    out.extend_from_slice(b"data");
    out.extend_from_slice(&data_len.to_le_bytes());
    for n in 0..samples {
        let phase = std::f32::consts::TAU * frequency * n as f32 / SAMPLE_RATE as f32;
        let sample = (phase.sin() * 8_000.0) as i16;
        out.extend_from_slice(&sample.to_le_bytes());
    }
    Bytes::from(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn header_describes_the_data() {
        let wav = super::sine_wav(440.0, 250);
        assert_eq!(&wav[..4], b"RIFF");
        assert_eq!(&wav[8..16], b"WAVEfmt ");
        let data_len = u32::from_le_bytes([wav[40], wav[41], wav[42], wav[43]]);
        assert_eq!(data_len, 4_000);
        assert_eq!(wav.len(), 44 + 4_000);
    }
}
