package dev.exclusive.demo.rest;

import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ParamConverter;
import jakarta.ws.rs.ext.ParamConverterProvider;
import jakarta.ws.rs.ext.Provider;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.util.function.Function;

/**
 * Reads the demo's whole-number path and query parameters ({@code /products/{id}}, {@code ?seconds=}), so that a
 * value that is not a number answers 400 naming the parameter. Left to JAX-RS, it would be a 404 with no body (the
 * specification's answer for a path or query parameter that cannot be converted).
 */
@Provider
public class NumberParameters implements ParamConverterProvider {

    @Override
    @SuppressWarnings("unchecked")
    public <T> ParamConverter<T> getConverter(Class<T> rawType, Type genericType, Annotation[] annotations) {
        if (rawType == long.class || rawType == Long.class) {
            return (ParamConverter<T>) new WholeNumber<>(describe(annotations), Long::valueOf);
        }
        if (rawType == int.class || rawType == Integer.class) {
            return (ParamConverter<T>) new WholeNumber<>(describe(annotations), Integer::valueOf);
        }
        return null;
    }

    private static String describe(Annotation[] annotations) {
        for (Annotation annotation : annotations) {
            if (annotation instanceof PathParam path) {
                return "path parameter '" + path.value() + "'";
            }
            if (annotation instanceof QueryParam query) {
                return "query parameter '" + query.value() + "'";
            }
        }
        return "parameter";
    }

    private record WholeNumber<N extends Number>(String parameter, Function<String, N> parse)
            implements ParamConverter<N> {

        @Override
        public N fromString(String value) {
            try {
                return parse.apply(value == null ? null : value.strip());
            } catch (NumberFormatException e) {
                throw new BadRequestException(
                        ShopExceptionMappers.problem(
                                Response.Status.BAD_REQUEST,
                                "bad-request",
                                parameter + " must be a whole number, got '" + value + "'"),
                        e);
            }
        }

        @Override
        public String toString(N value) {
            return value.toString();
        }
    }
}
