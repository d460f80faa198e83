package dev.zaelimiter.autoconfigure.aop;

import dev.zaelimiter.Names;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimited;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodClassKey;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.core.annotation.MergedAnnotation;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionParser;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

import java.time.Duration;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Finds the {@link RateLimited} annotations that apply to a method of a target class and compiles them once: checks
 * the resource and limit names, parses every SpEL expression, and caches the result per method and target class.
 * The pointcut asks while the bean's proxy is created, so a malformed annotation fails startup with a message naming
 * the method; the interceptor then only reads the cache.
 *
 * <p>Define a bean of this type to replace the expression parser (for example a
 * {@link SpelExpressionParser} with a compiler configuration).
 */
public class RateLimitedOperationSource {

    private static final boolean REACTOR = org.springframework.util.ClassUtils.isPresent(
            "reactor.core.publisher.Flux", RateLimitedOperationSource.class.getClassLoader());

    private static final Pattern WHOLE_NUMBER = Pattern.compile("\\s*[+-]?\\d{1,19}\\s*");

    private static final RateLimitedMethod NONE = new RateLimitedMethod(new RateLimitedMethod.Operation[0],
            RateLimitedMethod.Async.NONE, null, null, "none", Map.of());

    private final ExpressionParser parser;
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final Map<MethodClassKey, RateLimitedMethod> cache = new ConcurrentHashMap<>(64);
    /**
     * The same entries by method, for the interceptor's lookup on every call: a proxy passes the same {@code Method}
     * object each time, which the map finds by identity, without a key object or a comparison of parameter types.
     */
    private final Map<Method, ByTargetClass> byMethod = new ConcurrentHashMap<>(64);

    /** The compiled annotations of one method for one target class, and those for other target classes. */
    private record ByTargetClass(Class<?> targetClass, RateLimitedMethod compiled, ByTargetClass next) {

        ByTargetClass with(Class<?> type, RateLimitedMethod method) {
            for (ByTargetClass entry = this; entry != null; entry = entry.next) {
                if (entry.targetClass == type) {
                    return this;
                }
            }
            return new ByTargetClass(type, method, this);
        }
    }

    /** A source parsing with a default {@link SpelExpressionParser}. */
    public RateLimitedOperationSource() {
        this(new SpelExpressionParser());
    }

    public RateLimitedOperationSource(ExpressionParser parser) {
        this.parser = Objects.requireNonNull(parser, "parser");
    }

    /** What one {@code @RateLimited} annotation consumes: its resource, its limit names, and where it is. */
    public record Consumption(String resource, List<String> limits, String where) {
    }

    /** What the rate-limited methods looked at so far consume, one entry per annotation. */
    public List<Consumption> consumptions() {
        List<Consumption> consumptions = new ArrayList<>();
        for (RateLimitedMethod method : cache.values()) {
            if (method != NONE) {
                for (RateLimitedMethod.Operation operation : method.operations) {
                    consumptions.add(new Consumption(operation.resource, List.of(operation.limits), operation.where));
                }
            }
        }
        return consumptions;
    }

    /** The number of methods looked at so far, rate limited or not. */
    public int size() {
        return cache.size();
    }

    /** Whether {@code method}, called on a {@code targetClass} bean, is rate limited. */
    public boolean isRateLimited(Method method, Class<?> targetClass) {
        return get(method, targetClass) != null;
    }

    /**
     * The compiled annotations of {@code method} called on a bean of {@code targetClass}, or {@code null} when the
     * method is not rate limited. Compiled on the first request, cached after.
     *
     * @throws IllegalStateException when an annotation is malformed
     */
    RateLimitedMethod get(Method method, Class<?> targetClass) {
        for (ByTargetClass entry = byMethod.get(method); entry != null; entry = entry.next()) {
            if (entry.targetClass() == targetClass) {
                return entry.compiled() == NONE ? null : entry.compiled();
            }
        }
        MethodClassKey key = new MethodClassKey(method, targetClass);
        RateLimitedMethod cached = cache.get(key);
        if (cached == null) {
            cached = cache.computeIfAbsent(key, k -> {
                RateLimitedMethod compiled = compile(method, targetClass);
                return compiled == null ? NONE : compiled;
            });
        }
        RateLimitedMethod found = cached;
        byMethod.compute(method, (m, entries) -> entries == null ? new ByTargetClass(targetClass, found, null)
                : entries.with(targetClass, found));
        return found == NONE ? null : found;
    }

    private RateLimitedMethod compile(Method method, Class<?> targetClass) {
        if (method.getDeclaringClass() == Object.class || Modifier.isStatic(method.getModifiers())) {
            return null;
        }
        Class<?> type = targetClass != null ? targetClass : method.getDeclaringClass();
        Method specific = AopUtils.getMostSpecificMethod(method, type);
        List<RateLimited> annotations = nearest(MergedAnnotations.from(specific, SearchStrategy.TYPE_HIERARCHY));
        if (annotations.isEmpty() && Modifier.isPublic(specific.getModifiers())
                && !ReflectionUtils.isObjectMethod(specific)) {
            annotations = nearest(MergedAnnotations.from(type, SearchStrategy.TYPE_HIERARCHY));
        }
        if (annotations.isEmpty()) {
            return null;
        }
        Class<?> userType = ClassUtils.getUserClass(type);
        String description = describe(specific, userType);
        String[] names = parameterNames.getParameterNames(specific);
        Map<String, Integer> parameterIndex = parameterIndex(specific, names);
        RateLimitedMethod.Operation[] operations = new RateLimitedMethod.Operation[annotations.size()];
        for (int i = 0; i < operations.length; i++) {
            operations[i] = operation(annotations.get(i), description, parameterIndex, names);
        }
        return new RateLimitedMethod(operations, async(specific.getReturnType()), specific, userType, description,
                parameterIndex);
    }

    /** The annotations of the nearest element that has any (the method itself before the ones it overrides). */
    private static List<RateLimited> nearest(MergedAnnotations annotations) {
        List<MergedAnnotation<RateLimited>> all = new ArrayList<>();
        annotations.stream(RateLimited.class).forEach(all::add);
        int nearest = Integer.MAX_VALUE;
        for (MergedAnnotation<RateLimited> annotation : all) {
            nearest = Math.min(nearest, annotation.getAggregateIndex());
        }
        List<RateLimited> found = new ArrayList<>(all.size());
        for (MergedAnnotation<RateLimited> annotation : all) {
            if (annotation.getAggregateIndex() == nearest) {
                found.add(annotation.synthesize());
            }
        }
        return found;
    }

    private static RateLimitedMethod.Async async(Class<?> returnType) {
        if (REACTOR && ReactiveRateLimitedCalls.handles(returnType)) {
            return RateLimitedMethod.Async.REACTIVE;
        }
        if (!CompletionStage.class.isAssignableFrom(returnType)) {
            return RateLimitedMethod.Async.NONE;
        }
        return returnType == CompletableFuture.class || returnType == CompletionStage.class
                ? RateLimitedMethod.Async.DEPENDENT_STAGE : RateLimitedMethod.Async.CALLBACK;
    }

    private RateLimitedMethod.Operation operation(RateLimited annotation, String description,
            Map<String, Integer> parameterIndex, String[] names) {
        String where = "@RateLimited(resource = \"" + annotation.resource() + "\", entity = \"" + annotation.entity()
                + "\") on " + description;
        String resource;
        try {
            resource = Names.resource("resource", annotation.resource());
        } catch (ValidationException e) {
            throw invalid(where, e.getMessage(), e);
        }
        if (annotation.entity().isBlank()) {
            throw invalid(where, "entity is blank; write a SpEL expression such as \"#userId\"", null);
        }
        RateLimitedMethod.Value entity = value(annotation.entity(), where, "entity", parameterIndex, names);

        Consume[] consume = annotation.consume();
        String[] limits = new String[consume.length];
        RateLimitedMethod.Value[] amounts = new RateLimitedMethod.Value[consume.length];
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < consume.length; i++) {
            try {
                limits[i] = Names.limitName("consume.limit", consume[i].limit());
            } catch (ValidationException e) {
                throw invalid(where, e.getMessage(), e);
            }
            if (!seen.add(limits[i])) {
                throw invalid(where, "limit '" + limits[i] + "' is consumed twice; give it one @Consume", null);
            }
            String amount = consume[i].amount();
            if (amount.isBlank()) {
                throw invalid(where, "the amount of '" + limits[i] + "' is blank; write a number or an expression",
                        null);
            }
            amounts[i] = WHOLE_NUMBER.matcher(amount).matches()
                    ? new RateLimitedMethod.Constant(amount, parseAmount(amount, where, limits[i]))
                    : value(amount, where, "amount of '" + limits[i] + "'", parameterIndex, names);
        }
        Duration maxWait = Duration.ZERO;
        if (!annotation.maxWait().isBlank()) {
            try {
                maxWait = DurationStyle.detectAndParse(annotation.maxWait());
            } catch (IllegalArgumentException e) {
                throw invalid(where, "maxWait '" + annotation.maxWait() + "' is not a duration; write one such as"
                        + " \"2s\", \"500ms\" or \"PT1M\"", e);
            }
            if (maxWait.isNegative()) {
                throw invalid(where, "maxWait '" + annotation.maxWait() + "' is negative", null);
            }
        }
        for (Class<? extends Throwable> type : annotation.pauseOn()) {
            if (!dev.zaelimiter.spring.UpstreamRetryAfter.class.isAssignableFrom(type)) {
                throw invalid(where, "pauseOn lists " + type.getName() + ", which does not implement"
                        + " UpstreamRetryAfter, so it cannot say how long to pause", null);
            }
        }
        if (annotation.onUnavailable().length > 1) {
            throw invalid(where, "onUnavailable lists " + java.util.Arrays.toString(annotation.onUnavailable())
                    + "; give at most one policy", null);
        }
        return new RateLimitedMethod.Operation(resource, entity, limits, amounts, annotation.rollbackOn().clone(),
                maxWait, annotation.priority(), where, annotation.pauseOn().clone(),
                annotation.onUnavailable().length == 0 ? null : annotation.onUnavailable()[0]);
    }

    private static Long parseAmount(String amount, String where, String limit) {
        long value;
        try {
            value = Long.parseLong(amount.trim());
        } catch (NumberFormatException e) {
            throw invalid(where, "the amount of '" + limit + "' (" + amount.trim() + ") is too large", e);
        }
        if (value < 0) {
            throw invalid(where, "the amount of '" + limit + "' is " + value + "; an amount is zero or more", null);
        }
        return value;
    }

    /**
     * Parses an expression. A plain reference to an argument ({@code #userId}, {@code #p0}, {@code #a0}) becomes an
     * index into the argument array; a reference to a name that is no parameter fails when the names are known.
     */
    private RateLimitedMethod.Value value(String source, String where, String what,
            Map<String, Integer> parameterIndex, String[] names) {
        Expression expression;
        try {
            expression = parser.parseExpression(source);
        } catch (ParseException e) {
            throw invalid(where, "the " + what + " expression '" + source + "' does not parse: " + e.getMessage(), e);
        }
        if (expression instanceof SpelExpression spel && spel.getAST() instanceof VariableReference variable) {
            String name = variable.toStringAST().substring(1);
            if (!name.equals("root") && !name.equals("this")) {
                Integer index = parameterIndex.get(name);
                if (index != null) {
                    return new RateLimitedMethod.Argument(source, index);
                }
                if (names != null) {
                    throw invalid(where, "the " + what + " expression '" + source + "' names no parameter; the"
                            + " parameters are " + Arrays.toString(names) + " (or #p0, #p1, ... by position)",
                            null);
                }
            }
        }
        return new RateLimitedMethod.Spel(source, expression);
    }

    private static Map<String, Integer> parameterIndex(Method method, String[] names) {
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < method.getParameterCount(); i++) {
            index.put("p" + i, i);
            index.put("a" + i, i);
        }
        if (names != null) {
            for (int i = 0; i < names.length; i++) {
                index.put(names[i], i);
            }
        }
        return Map.copyOf(index);
    }

    private static String describe(Method method, Class<?> targetClass) {
        StringBuilder sb = new StringBuilder(ClassUtils.getShortName(targetClass)).append('.')
                .append(method.getName()).append('(');
        Class<?>[] types = method.getParameterTypes();
        for (int i = 0; i < types.length; i++) {
            sb.append(i == 0 ? "" : ", ").append(types[i].getSimpleName());
        }
        return sb.append(')').toString();
    }

    private static IllegalStateException invalid(String where, String problem, Exception cause) {
        return new IllegalStateException("Invalid " + where + ": " + problem, cause);
    }
}
