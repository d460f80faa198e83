package dev.zaelimiter;

import java.util.Base64;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Short random lease ids (128 bits, URL-safe), under which concurrency slots are held. They only need to be unique,
 * not secret, so they come from the thread's own generator: no lock and no entropy pool on the acquire path.
 */
final class LeaseIds {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private LeaseIds() {
    }

    static String next() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high = random.nextLong();
        long low = random.nextLong();
        byte[] bytes = new byte[16];
        for (int i = 0; i < 8; i++) {
            bytes[i] = (byte) (high >>> (56 - 8 * i));
            bytes[8 + i] = (byte) (low >>> (56 - 8 * i));
        }
        return ENCODER.encodeToString(bytes);
    }
}
