/**
 * zae-limiter's core: the API ({@code dev.zaelimiter}), the store SPI ({@code dev.zaelimiter.store}) and the
 * in-memory store. The engine under {@code dev.zaelimiter.internal} is exported only to the store modules and the
 * store TCK, which apply its arithmetic; applications cannot reach it.
 */
module dev.zaelimiter.core {
    requires org.slf4j;
    requires com.cronutils;

    exports dev.zaelimiter;
    exports dev.zaelimiter.store;
    exports dev.zaelimiter.store.memory;
    exports dev.zaelimiter.internal to dev.zaelimiter.dynamodb, dev.zaelimiter.redis;
    exports dev.zaelimiter.internal.algorithm to dev.zaelimiter.dynamodb, dev.zaelimiter.redis;
}
