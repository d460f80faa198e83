package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.Names;
import dev.zaelimiter.spring.RateLimitedExpressionRoot;
import dev.zaelimiter.spring.UpstreamRetryAfter;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;

import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@code @RateLimited} annotations of one method of one target class, compiled once: literal names checked,
 * expressions parsed, simple argument references turned into array indexes.
 */
final class RateLimitedMethod {

    /** The method's own {@code @RateLimited} annotations or its class's, in declaration order. */
    final Operation[] operations;
    /** How the lease follows the returned value. */
    final Async async;
    /** The implementation method, as expressions see it. */
    final Method method;
    final Class<?> targetClass;
    /** {@code ClassName.method(ParamType, ...)}, for messages. */
    final String description;
    /** Argument index by SpEL variable name: parameter names, {@code p0}, {@code a0}, ... */
    final Map<String, Integer> parameterIndex;
    /** Whether an entity or an amount is a SpEL expression, so that a call needs an {@link Invocation}. */
    final boolean hasExpressions;

    RateLimitedMethod(Operation[] operations, Async async, Method method, Class<?> targetClass, String description,
            Map<String, Integer> parameterIndex) {
        this.operations = operations;
        this.async = async;
        this.method = method;
        this.targetClass = targetClass;
        this.description = description;
        this.parameterIndex = parameterIndex;
        this.hasExpressions = hasExpressions(operations);
    }

    private static boolean hasExpressions(Operation[] operations) {
        for (Operation operation : operations) {
            if (operation.entity instanceof Spel) {
                return true;
            }
            for (Value amount : operation.amounts) {
                if (amount instanceof Spel) {
                    return true;
                }
            }
        }
        return false;
    }

    /** How a method's result relates to the end of its leases. */
    enum Async {
        /** The lease ends when the method returns. */
        NONE,
        /** Returns {@code CompletableFuture} or {@code CompletionStage}: hand back a stage that ends the lease. */
        DEPENDENT_STAGE,
        /** Returns another {@code CompletionStage} type: end the lease from a callback, hand back the original. */
        CALLBACK,
        /** Returns {@code Mono} or {@code Flux}: acquire on subscription, end with the publisher. */
        REACTIVE
    }

    /** One {@code @RateLimited} annotation. */
    static final class Operation {

        final String resource;
        final Value entity;
        final String[] limits;
        final Value[] amounts;
        final Class<? extends Throwable>[] rollbackOn;
        /** How long the call may wait for capacity; zero fails at once. */
        final Duration maxWait;
        final int priority;
        /** {@code @RateLimited(resource = "...", entity = "...") on Type.method(...)}, for messages. */
        final String where;
        /** Failures that pause the resource for their {@code UpstreamRetryAfter.retryAfter()}. */
        final Class<? extends Throwable>[] pauseOn;
        /** What the call does when the store cannot decide it; {@code null} keeps the limiter's policy. */
        final Unavailable onUnavailable;
        /** The amounts when all of them are whole-number literals, built once; {@code null} otherwise. */
        private final Map<String, Long> constantAmounts;

        @SuppressWarnings("unchecked")
        Operation(String resource, Value entity, String[] limits, Value[] amounts,
                Class<? extends Throwable>[] rollbackOn, Duration maxWait, int priority, String where) {
            this(resource, entity, limits, amounts, rollbackOn, maxWait, priority, where, new Class[0]);
        }

        Operation(String resource, Value entity, String[] limits, Value[] amounts,
                Class<? extends Throwable>[] rollbackOn, Duration maxWait, int priority, String where,
                Class<? extends Throwable>[] pauseOn) {
            this(resource, entity, limits, amounts, rollbackOn, maxWait, priority, where, pauseOn, null);
        }

        Operation(String resource, Value entity, String[] limits, Value[] amounts,
                Class<? extends Throwable>[] rollbackOn, Duration maxWait, int priority, String where,
                Class<? extends Throwable>[] pauseOn, Unavailable onUnavailable) {
            this.onUnavailable = onUnavailable;
            this.pauseOn = pauseOn;
            this.maxWait = maxWait;
            this.priority = priority;
            this.resource = resource;
            this.entity = entity;
            this.limits = limits;
            this.amounts = amounts;
            this.rollbackOn = rollbackOn;
            this.where = where;
            this.constantAmounts = constantAmounts(limits, amounts);
        }

        /**
         * The map {@link #amounts} would build on every call when every amount is a literal, with the same entries in
         * the same order: a {@code Map.of} for one limit, an unmodifiable insertion-ordered map for several.
         */
        private static Map<String, Long> constantAmounts(String[] limits, Value[] amounts) {
            for (Value amount : amounts) {
                if (!(amount instanceof Constant constant && constant.value instanceof Long)) {
                    return null;
                }
            }
            if (limits.length == 1) {
                return Map.of(limits[0], (Long) ((Constant) amounts[0]).value);
            }
            Map<String, Long> map = new LinkedHashMap<>(limits.length * 2);
            for (int i = 0; i < limits.length; i++) {
                map.put(limits[i], (Long) ((Constant) amounts[i]).value);
            }
            return Collections.unmodifiableMap(map);
        }

        /** Whether a call needs an {@link AcquireRequest}: it may wait (its priority orders waiters), or sets a policy. */
        boolean needsRequest() {
            return !maxWait.isZero() || onUnavailable != null;
        }

        /** The request of a call for {@code entityId} consuming {@code amounts}. */
        AcquireRequest request(String entityId, Map<String, Long> amounts) {
            return AcquireRequest.of(entityId, resource).consume(amounts).maxWait(maxWait).priority(priority)
                    .onUnavailable(onUnavailable);
        }

        /** How long {@code failure} asks to pause the resource, or {@code null} when it is not in pauseOn. */
        Duration pauseFor(Throwable failure) {
            for (Class<? extends Throwable> type : pauseOn) {
                if (type.isInstance(failure) && failure instanceof UpstreamRetryAfter upstream) {
                    return upstream.retryAfter();
                }
            }
            return null;
        }

        boolean rollsBackOn(Throwable failure) {
            for (Class<? extends Throwable> type : rollbackOn) {
                if (type.isInstance(failure)) {
                    return true;
                }
            }
            return false;
        }

        String entityId(Object[] args, Invocation invocation) {
            Object value = entity.value(args, invocation, this);
            String id = value instanceof String s ? s : value == null ? null : String.valueOf(value);
            if (id == null || id.isBlank()) {
                throw new RateLimitedEntityException(resource, entity.source(), id, true, where
                        + ": the entity expression '" + entity.source() + "' must give a non-blank entity id");
            }
            try {
                return Names.entityId("entityId", id);
            } catch (ValidationException e) {
                throw new RateLimitedEntityException(resource, entity.source(), id, false, where
                        + ": the entity expression '" + entity.source() + "' gave an invalid entity id: "
                        + e.rule());
            }
        }

        Map<String, Long> amounts(Object[] args, Invocation invocation) {
            if (constantAmounts != null) {
                return constantAmounts;
            }
            if (limits.length == 1) {
                return Map.of(limits[0], amount(0, args, invocation));
            }
            Map<String, Long> amounts = new LinkedHashMap<>(limits.length * 2);
            for (int i = 0; i < limits.length; i++) {
                amounts.put(limits[i], amount(i, args, invocation));
            }
            return amounts;
        }

        private long amount(int i, Object[] args, Invocation invocation) {
            Value value = amounts[i];
            if (value instanceof Constant constant && constant.value instanceof Long amount) {
                return amount;
            }
            Object result = value.value(args, invocation, this);
            Long amount = wholeNumber(result);
            if (amount == null) {
                throw new ValidationException("consume." + limits[i], result, where + ": the amount expression '"
                        + value.source() + "' must give a whole number of tokens");
            }
            return amount;
        }

        private static Long wholeNumber(Object value) {
            if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
                return ((Number) value).longValue();
            }
            try {
                if (value instanceof BigInteger big) {
                    return big.longValueExact();
                }
                if (value instanceof Number number) {
                    return new BigDecimal(number.toString()).longValueExact();
                }
            } catch (ArithmeticException | NumberFormatException e) {
                return null;
            }
            return null;
        }
    }

    /** An entity or amount: a constant, an argument, or an expression. */
    abstract static class Value {

        private final String source;

        Value(String source) {
            this.source = source;
        }

        /** The text written in the annotation. */
        final String source() {
            return source;
        }

        /** The value for a call with {@code args}; {@code invocation} is {@code null} when the method has no SpEL. */
        abstract Object value(Object[] args, Invocation invocation, Operation operation);
    }

    static final class Constant extends Value {

        final Object value;

        Constant(String source, Object value) {
            super(source);
            this.value = value;
        }

        @Override
        Object value(Object[] args, Invocation invocation, Operation operation) {
            return value;
        }
    }

    /** {@code #name}, {@code #p0} or {@code #a0}: read straight from the argument array. */
    static final class Argument extends Value {

        final int index;

        Argument(String source, int index) {
            super(source);
            this.index = index;
        }

        @Override
        Object value(Object[] args, Invocation invocation, Operation operation) {
            return args[index];
        }
    }

    static final class Spel extends Value {

        final Expression expression;

        Spel(String source, Expression expression) {
            super(source);
            this.expression = expression;
        }

        @Override
        Object value(Object[] args, Invocation invocation, Operation operation) {
            try {
                return expression.getValue(invocation.evaluationContext());
            } catch (EvaluationException e) {
                throw new IllegalArgumentException(operation.where + ": cannot evaluate '" + source() + "': "
                        + e.getMessage(), e);
            }
        }
    }

    /**
     * One call of a method with expressions: its arguments, and an evaluation context made when an expression first
     * needs it.
     */
    static final class Invocation {

        final RateLimitedMethod method;
        final Object target;
        final Object[] args;
        private final EvaluationContext shared;
        private EvaluationContext context;

        Invocation(RateLimitedMethod method, Object target, Object[] args, EvaluationContext shared) {
            this.method = method;
            this.target = target;
            this.args = args;
            this.shared = shared;
        }

        EvaluationContext evaluationContext() {
            if (context == null) {
                context = new InvocationEvaluationContext(shared,
                        new RateLimitedExpressionRoot(method.method, target, method.targetClass, args),
                        method.parameterIndex, args);
            }
            return context;
        }
    }
}
