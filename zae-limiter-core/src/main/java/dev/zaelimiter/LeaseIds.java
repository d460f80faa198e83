package dev.zaelimiter;

import java.security.SecureRandom;
import java.util.Base64;

/** Short random lease ids (96 bits, URL-safe), under which concurrency slots are held. */
final class LeaseIds {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private LeaseIds() {
    }

    static String next() {
        byte[] bytes = new byte[12];
        RANDOM.nextBytes(bytes);
        return ENCODER.encodeToString(bytes);
    }
}
