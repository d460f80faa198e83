package dev.zaelimiter.store;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Limit;

import java.util.List;

/**
 * What one configuration level sets. Each field is {@code null} when the level leaves it to the levels below.
 *
 * @param limits      the limits this level defines, replacing (never merging with) those of lower levels
 * @param disabled    the disabled mode
 * @param cascade     the cascade policy
 * @param pausedUntil the instant (epoch ms) until which calls are paused, or {@code null}
 */
public record LevelConfig(List<Limit> limits, DisabledMode disabled, Boolean cascade, Long pausedUntil) {

    /** A level that sets nothing. */
    public static final LevelConfig EMPTY = new LevelConfig(null, null, null, null);

    public LevelConfig {
        limits = limits == null ? null : List.copyOf(limits);
    }

    /** A level with no pause. */
    public LevelConfig(List<Limit> limits, DisabledMode disabled, Boolean cascade) {
        this(limits, disabled, cascade, null);
    }

    public LevelConfig withLimits(List<Limit> limits) {
        return new LevelConfig(limits, disabled, cascade, pausedUntil);
    }

    public LevelConfig withDisabled(DisabledMode disabled) {
        return new LevelConfig(limits, disabled, cascade, pausedUntil);
    }

    public LevelConfig withCascade(Boolean cascade) {
        return new LevelConfig(limits, disabled, cascade, pausedUntil);
    }

    public LevelConfig withPausedUntil(Long pausedUntil) {
        return new LevelConfig(limits, disabled, cascade, pausedUntil);
    }

    public boolean isEmpty() {
        return limits == null && disabled == null && cascade == null && pausedUntil == null;
    }
}
