package dev.zaelimiter.autoconfigure.web;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;

/**
 * Replaces a secret entity id (an API key) by {@code k_} followed by the unpadded base64url HMAC-SHA256 of its UTF-8
 * bytes under a configured key: 45 characters that are a valid entity id, say nothing about the secret, and are the
 * same in every process that shares the key. One {@link Mac} per thread, so hashing allocates only its result.
 */
final class EntityHasher {

    static final String PREFIX = "k_";
    private static final String ALGORITHM = "HmacSHA256";
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private final SecretKeySpec key;
    private final ThreadLocal<Mac> macs;

    EntityHasher(String key) {
        this.key = new SecretKeySpec(key.getBytes(StandardCharsets.UTF_8), ALGORITHM);
        newMac(this.key); // fails now, not on the first request, if the JVM lacks HmacSHA256
        this.macs = ThreadLocal.withInitial(() -> newMac(this.key));
    }

    private static Mac newMac(SecretKeySpec key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    /** {@code k_} + base64url(HMAC-SHA256(key, value)), without padding. */
    String hash(String value) {
        byte[] digest = macs.get().doFinal(value.getBytes(StandardCharsets.UTF_8));
        return PREFIX + ENCODER.encodeToString(digest);
    }

    @Override
    public String toString() {
        return "EntityHasher[HmacSHA256]";
    }
}
