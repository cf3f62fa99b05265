//! ES256 keys and the pieces of the JWTs the client signs (feature `oauth-jwt`): the client
//! assertion of `private_key_jwt` (`jwt.rs`) and DPoP proofs (`dpop.rs`).
//!
//! Signed with RustCrypto's `p256` rather than rmcp's `auth-client-credentials-jwt` feature:
//! that feature brings `jsonwebtoken` with aws-lc, a C library built from source, and DPoP
//! (which rmcp does not have) needs ES256 signing of our own anyway; one pure-Rust signer
//! serves both.

use base64::Engine;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use p256::pkcs8::DecodePrivateKey;
use serde_json::{Map, Value, json};

/// A P-256 private key that signs ES256 JWTs. Never printed: no `Debug`.
pub(crate) struct Es256Key(SigningKey);

impl Es256Key {
    /// The key in `pem`, PKCS#8 (`-----BEGIN PRIVATE KEY-----`), as `openssl genpkey` and
    /// WebCrypto's `exportKey("pkcs8")` write it.
    pub(crate) fn from_pem(pem: &str) -> Result<Self, String> {
        SigningKey::from_pkcs8_pem(pem.trim())
            .map(Self)
            .map_err(|_| {
                "the client's private key is not a P-256 (ES256) key in PKCS#8 PEM \
             (`-----BEGIN PRIVATE KEY-----`)"
                    .to_owned()
            })
    }

    /// A new key from the operating system's random source.
    pub(crate) fn generate() -> Result<Self, String> {
        loop {
            let mut secret = [0u8; 32];
            getrandom::fill(&mut secret)
                .map_err(|error| format!("no random source for a DPoP key: {error}"))?;
            // Fails only for zero or a value past the group order (about 2^-32): draw again.
            if let Ok(key) = SigningKey::from_slice(&secret) {
                return Ok(Self(key));
            }
        }
    }

    /// The public half as a JWK (RFC 7517/7518): what a DPoP proof's header carries.
    pub(crate) fn public_jwk(&self) -> Value {
        let point = self.0.verifying_key().to_encoded_point(false);
        let coordinate = |bytes: Option<&p256::FieldBytes>| bytes.map(b64).unwrap_or_default();
        json!({
            "kty": "EC",
            "crv": "P-256",
            "x": coordinate(point.x()),
            "y": coordinate(point.y()),
        })
    }

    /// The compact JWS of `claims` under `header` (to which `alg` is added).
    pub(crate) fn sign(&self, mut header: Map<String, Value>, claims: &Value) -> String {
        header.insert("alg".to_owned(), Value::from("ES256"));
        let input = format!(
            "{}.{}",
            b64(Value::Object(header).to_string()),
            b64(claims.to_string())
        );
        let signature: Signature = self.0.sign(input.as_bytes());
        format!("{input}.{}", b64(signature.to_bytes()))
    }
}

/// 128 random bits, base64url: a `jti`.
pub(crate) fn random_id() -> Result<String, String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|error| format!("no random source: {error}"))?;
    Ok(b64(bytes))
}

pub(crate) fn b64(bytes: impl AsRef<[u8]>) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}
