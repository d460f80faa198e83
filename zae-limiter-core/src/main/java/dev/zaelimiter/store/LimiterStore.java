package dev.zaelimiter.store;

import dev.zaelimiter.DisabledMode;
import dev.zaelimiter.Entity;
import dev.zaelimiter.EntityExistsException;
import dev.zaelimiter.EntityNotFoundException;
import dev.zaelimiter.Limit;

import java.util.List;
import java.util.Optional;

/**
 * Where entities, configuration and buckets live. Implementations must be thread-safe, must raise
 * {@link dev.zaelimiter.StoreUnavailableException} (and only that) for transport failures, and must pass the store
 * contract test suite. Inputs arrive validated; instants are epoch milliseconds from the limiter's clock.
 */
public interface LimiterStore extends AutoCloseable {

    // ---- configuration

    /**
     * Reads every level that decides {@code entityId} on {@code resource}, and the entity record, in one call. A
     * store that caches must reflect its own writes at once.
     */
    ConfigSnapshot loadConfig(String entityId, String resource);

    /** What one level sets; {@link LevelConfig#EMPTY} when it sets nothing. */
    LevelConfig getLevel(ConfigScope scope);

    /** Sets the limits of one level; {@code null} removes them. Other fields of the level are kept. */
    void putLimits(ConfigScope scope, List<Limit> limits);

    /** Sets the disabled mode of one level; {@code null} removes it. */
    void putDisabled(ConfigScope scope, DisabledMode mode);

    /** Sets the cascade policy of one level; {@code null} removes it. */
    void putCascade(ConfigScope scope, Boolean cascade);

    /**
     * Pauses one level (a resource, or an entity on a resource) until {@code until} (epoch ms); {@code null} resumes.
     * Stores that decorate another must delegate this too.
     */
    default void putPause(ConfigScope scope, Long until) {
        throw new UnsupportedOperationException(getClass().getName() + " does not support pauses");
    }

    // ---- entities

    /** Stores a new entity; raises {@link EntityExistsException} when the id is taken. */
    void createEntity(Entity entity);

    Optional<Entity> getEntity(String entityId);

    /** Replaces an existing entity record; raises {@link EntityNotFoundException} when there is none. */
    void updateEntity(Entity entity);

    /**
     * Removes an entity record with its configuration levels and buckets.
     *
     * @return whether there was a record
     */
    boolean deleteEntity(String entityId);

    /**
     * The configuration levels {@code entityId} sets something on: its {@code _default_} level and its level on
     * each resource, ordered by resource. What {@link #deleteEntity} removes with the record, so that the audit log
     * can say what went. Stores that decorate another must delegate this too.
     */
    default List<ConfigScope> entityScopes(String entityId) {
        throw new UnsupportedOperationException(getClass().getName() + " does not list an entity's levels");
    }

    /** The entities whose parent is {@code parentId}. */
    List<Entity> children(String parentId);

    // ---- buckets

    /**
     * Refills every bucket of {@code debits} to {@code now} and, if every non-count-only debit is covered on its
     * hard limits, applies all of them; otherwise applies none. A bucket that does not exist starts full. A debit
     * with a per-call override ({@link BucketDebit#overridden()}) is checked against its {@code limits} but leaves
     * the bucket as {@link BucketState#debitedKept} computes it, under its {@code kept}
     * limits.
     */
    AcquireResult tryAcquire(List<BucketDebit> debits, long now);

    /**
     * As {@link #tryAcquire(List, long)}, but a debit may also be <em>booked</em>: applied although a hard limit
     * lacks the tokens now, when every such limit drips and, taken into debt, is back to a balance of zero or more
     * by its refill within {@code horizonMillis} ({@link BucketState#admitsWithin}). The result's
     * {@link AcquireResult#waitMillis()} says when that is ({@link BucketState#bookedWaitMillis}, the latest over
     * the debits); the caller holds the debit until then, or gives it back. Debits that take a concurrency slot,
     * count only, or carry a per-call override are never booked ({@link BucketDebit#bookable()}), and none further
     * ahead than {@link BucketDebit#bookingHorizon} allows, which the limiter counts on. With a horizon of
     * zero this is {@code tryAcquire}. The default books nothing (it is {@code tryAcquire}): the limiter then waits
     * by re-checking. Stores that decorate another must delegate this too.
     */
    default AcquireResult tryAcquire(List<BucketDebit> debits, long now, long horizonMillis) {
        return tryAcquire(debits, now);
    }

    /**
     * Applies {@code debits} unconditionally (adjustments and rollbacks), as {@link BucketDebit#shared()} (under the
     * kept limits): balances may go into debt, and a refund never lifts a balance above its capacity. A negative
     * amount of a concurrency limit gives back the slot of the debit's lease, once.
     */
    void apply(List<BucketDebit> debits, long now);

    /**
     * Renews, for one lease timeout from {@code now}, the concurrency slots that {@code debits}' lease holds.
     *
     * @return whether the lease still held every slot (false when one had expired and been given to another)
     */
    default boolean renew(List<BucketDebit> debits, long now) {
        throw new UnsupportedOperationException(getClass().getName() + " does not support concurrency limits");
    }

    /** Removes one bucket, so that it starts full on its next use. */
    void deleteBucket(BucketKey key);

    /** The buckets of {@code debits} refilled to {@code now}, without writing anything. */
    List<BucketSnapshot> peek(List<BucketDebit> debits, long now);

    // ---- history

    /**
     * The usage history this store keeps, or {@code null} when it keeps none (then the limiter records no usage).
     * Stores that decorate another must delegate this too.
     */
    default UsageStore usage() {
        return null;
    }

    /**
     * The audit log this store keeps, or {@code null} when it keeps none (then changes are not recorded). Stores
     * that decorate another must delegate this too.
     */
    default AuditStore audit() {
        return null;
    }

    /**
     * The in-place decisions this store offers when its buckets live in this process, or {@code null} (the default:
     * every decision goes through {@link #tryAcquire}). A store that decorates another and must see every decision
     * (to time it, say) wraps what the delegate answers, or answers {@code null}. One that changes what
     * {@link #loadConfig} answers must not pass on the delegate's {@link InPlaceBuckets#sharedConfigVersion}: the
     * limiter does not call {@code loadConfig} while that version is unchanged ({@link ForwardingStore} withholds it
     * from a subclass that overrides {@code loadConfig} unless told otherwise).
     */
    default InPlaceBuckets inPlaceBuckets() {
        return null;
    }

    @Override
    default void close() {
    }
}
