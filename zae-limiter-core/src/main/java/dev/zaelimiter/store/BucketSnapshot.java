package dev.zaelimiter.store;

import dev.zaelimiter.store.BucketState;

/** A bucket as a store saw it in one operation, refilled to that operation's instant. */
public record BucketSnapshot(BucketKey key, BucketState state) {
}
