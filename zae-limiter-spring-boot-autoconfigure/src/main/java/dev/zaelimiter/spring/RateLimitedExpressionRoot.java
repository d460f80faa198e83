package dev.zaelimiter.spring;

import java.lang.reflect.Method;

/**
 * The {@code #root} object of the SpEL expressions of {@link RateLimited} and {@link Consume}: the method being
 * called, the bean it is called on and the arguments. For example {@code "#root.methodName"} or
 * {@code "#root.args[0]"}.
 */
public final class RateLimitedExpressionRoot {

    private final Method method;
    private final Object target;
    private final Class<?> targetClass;
    private final Object[] args;

    public RateLimitedExpressionRoot(Method method, Object target, Class<?> targetClass, Object[] args) {
        this.method = method;
        this.target = target;
        this.targetClass = targetClass;
        this.args = args;
    }

    /** The method being called (the implementation's, when called through an interface). */
    public Method getMethod() {
        return method;
    }

    public String getMethodName() {
        return method.getName();
    }

    /** The bean the method is called on (the target behind the proxy). */
    public Object getTarget() {
        return target;
    }

    public Class<?> getTargetClass() {
        return targetClass;
    }

    /** The arguments of the call. */
    public Object[] getArgs() {
        return args;
    }
}
