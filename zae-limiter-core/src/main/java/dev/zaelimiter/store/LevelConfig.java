package dev.zaelimiter.store;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Limit;

import java.util.List;

/**
 * What one configuration level sets. Each field is {@code null} when the level leaves it to the levels below.
 *
 * @param limits   the limits this level defines, replacing (never merging with) those of lower levels
 * @param disabled the disabled mode
 * @param cascade  the cascade policy
 */
public record LevelConfig(List<Limit> limits, DisabledMode disabled, Boolean cascade) {

    /** A level that sets nothing. */
    public static final LevelConfig EMPTY = new LevelConfig(null, null, null);

    public LevelConfig {
        limits = limits == null ? null : List.copyOf(limits);
    }

    public LevelConfig withLimits(List<Limit> limits) {
        return new LevelConfig(limits, disabled, cascade);
    }

    public LevelConfig withDisabled(DisabledMode disabled) {
        return new LevelConfig(limits, disabled, cascade);
    }

    public LevelConfig withCascade(Boolean cascade) {
        return new LevelConfig(limits, disabled, cascade);
    }

    public boolean isEmpty() {
        return limits == null && disabled == null && cascade == null;
    }
}
